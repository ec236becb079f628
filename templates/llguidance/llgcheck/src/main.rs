//! llgcheck: compile a Lark grammar with llguidance (the grammar engine of
//! vLLM's "guidance" structured-output backend and SGLang's "llguidance"
//! grammar backend) and check whether text files are accepted by it, using
//! a byte-level vocabulary (tokens 0..=255 are the single bytes, token 256
//! is EOS). Built by templates/llguidance/grammar.sh against an llguidance
//! checkout (gap decision 239). This is Beam's code, not llguidance's.
//!
//! Usage: llgcheck GRAMMAR.lark [TEXT_FILE...]
//!
//! Output (stdout):
//!   compile_us=N            grammar compiled (N = microseconds)
//!   refused: <error>        grammar did not compile (exit status 1)
//!   ok FILE / fail FILE     one line per text file
//! Exit status: 0 grammar compiled (whatever the per-file results),
//!              1 grammar refused, 2 usage error / unreadable file,
//!              3 internal error (tokenizer/factory setup failed).
//! Reasons for `fail` lines are written to stderr.

use std::process::exit;
use std::sync::Arc;
use std::time::Instant;

use llguidance::api::{GrammarInit, TopLevelGrammar};
use llguidance::toktrie::{
    InferenceCapabilities, TokEnv, TokRxInfo, TokTrie, TokenId, TokenizerEnv,
};
use llguidance::{Logger, Matcher, ParserFactory};

/// Id of the end-of-sequence token in our byte vocabulary.
const EOS: TokenId = 256;
/// Vocabulary size: 256 byte tokens + EOS.
const VOCAB_SIZE: u32 = 257;

/// A tokenizer environment whose vocabulary is exactly the 256 single bytes
/// plus one special EOS token. Tokenization of any byte string is unique
/// (one token per byte), hence canonical.
struct ByteTokEnv {
    trie: TokTrie,
}

impl ByteTokEnv {
    fn new() -> Self {
        let mut words: Vec<Vec<u8>> = (0u32..256).map(|b| vec![b as u8]).collect();
        // Special tokens in toktrie are spelled with a leading 0xFF marker byte.
        words.push(b"\xFF<|eos|>".to_vec());
        assert_eq!(words.len() as u32, VOCAB_SIZE);
        let info = TokRxInfo::new(VOCAB_SIZE, EOS);
        ByteTokEnv {
            trie: TokTrie::from(&info, &words),
        }
    }
}

impl TokenizerEnv for ByteTokEnv {
    fn tok_trie(&self) -> &TokTrie {
        &self.trie
    }

    fn tokenize_bytes(&self, s: &[u8]) -> Vec<TokenId> {
        s.iter().map(|&b| b as TokenId).collect()
    }

    fn tokenize_is_canonical(&self) -> bool {
        true
    }
}

fn usage() -> ! {
    eprintln!("usage: llgcheck GRAMMAR.lark [TEXT_FILE...]");
    exit(2);
}

fn describe_byte(b: u8) -> String {
    if b.is_ascii_graphic() || b == b' ' {
        format!("0x{:02x} '{}'", b, b as char)
    } else {
        format!("0x{:02x}", b)
    }
}

/// Feed `text` byte by byte into `m`. Returns Ok(()) when every byte was
/// allowed by the token mask and EOS is allowed at the end; otherwise the
/// reason for rejection.
fn check_text(m: &mut Matcher, text: &[u8]) -> Result<(), String> {
    for (pos, &b) in text.iter().enumerate() {
        // compute_mask_or_eos: if the parser has already stopped (the grammar
        // cannot be extended any further) the mask is just {EOS}.
        let mask = m
            .compute_mask_or_eos()
            .map_err(|e| format!("at byte {}: mask error: {}", pos, e))?;
        if !mask.is_allowed(b as TokenId) {
            let why = if m.is_stopped() {
                " (grammar already complete)"
            } else {
                ""
            };
            return Err(format!(
                "at byte {} ({}): not allowed{}",
                pos,
                describe_byte(b),
                why
            ));
        }
        m.consume_token(b as TokenId)
            .map_err(|e| format!("at byte {} ({}): consume error: {}", pos, describe_byte(b), e))?;
    }
    let mask = m
        .compute_mask_or_eos()
        .map_err(|e| format!("at end: mask error: {}", e))?;
    let eos_allowed = mask.is_allowed(EOS);
    let accepting = m.is_accepting().unwrap_or(false);
    if eos_allowed != accepting && !m.is_stopped() {
        // Should not happen; report it so it can be investigated.
        eprintln!(
            "llgcheck: warning: EOS in mask = {} but is_accepting() = {}",
            eos_allowed, accepting
        );
    }
    if eos_allowed {
        Ok(())
    } else {
        Err(format!(
            "at end ({} bytes): grammar cannot stop here (EOS not allowed)",
            text.len()
        ))
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.is_empty() || args[0] == "-h" || args[0] == "--help" {
        usage();
    }
    let grammar_path = &args[0];
    let text_paths = &args[1..];

    // Read everything up front so that an unreadable file is reported
    // before any result is printed.
    let grammar_src = match std::fs::read(grammar_path) {
        Ok(b) => match String::from_utf8(b) {
            Ok(s) => s,
            Err(_) => {
                eprintln!("llgcheck: {}: grammar is not valid UTF-8", grammar_path);
                exit(2);
            }
        },
        Err(e) => {
            eprintln!("llgcheck: cannot read {}: {}", grammar_path, e);
            exit(2);
        }
    };
    let mut texts: Vec<(&String, Vec<u8>)> = Vec::with_capacity(text_paths.len());
    for p in text_paths {
        match std::fs::read(p) {
            Ok(b) => texts.push((p, b)),
            Err(e) => {
                eprintln!("llgcheck: cannot read {}: {}", p, e);
                exit(2);
            }
        }
    }

    let tok_env: TokEnv = Arc::new(ByteTokEnv::new());
    // Same as the Python LLTokenizer default: general slices, default caps.
    let factory = match ParserFactory::new_simple(&tok_env) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("llgcheck: internal error creating parser factory: {}", e);
            exit(3);
        }
    };

    // Mirrors LLMatcher(tokenizer, LLMatcher.grammar_from_lark(src)):
    // grammar_from_lark returns the string unchanged; the constructor parses
    // it with TopLevelGrammar::from_lark_or_grammar_list (a single
    // lark_grammar), builds the parser with default limits and
    // InferenceCapabilities, and wraps it in a Matcher (which also
    // initialises the parser state).
    let t0 = Instant::now();
    let template = match TopLevelGrammar::from_lark_or_grammar_list(&grammar_src) {
        Ok(grammar) => Matcher::new(factory.create_parser_from_init_ext(
            GrammarInit::Serialized(grammar),
            Logger::new(0, 1),
            InferenceCapabilities::default(),
            factory.limits().clone(),
        )),
        Err(e) => Matcher::new(Err(e)),
    };
    let compile_us = t0.elapsed().as_micros();

    if let Some(err) = template.get_error() {
        // The message may span several lines (llguidance shows the grammar
        // context); only trailing whitespace is trimmed.
        println!("refused: {}", err.trim_end());
        exit(1);
    }
    println!("compile_us={}", compile_us);

    for (path, text) in &texts {
        // Fresh matcher per text: deep clone of the pristine compiled matcher
        // (deep_clone also copies the lexer state, so nothing is shared).
        let mut m = template.deep_clone();
        match check_text(&mut m, text) {
            Ok(()) => println!("ok {}", path),
            Err(why) => {
                println!("fail {}", path);
                eprintln!("llgcheck: {}: {}", path, why);
            }
        }
    }
}
