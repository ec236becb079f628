// check.cjs DIR: compiles every grammar DIR/grammars.txt lists with
// xgrammar (its WebAssembly build, @mlc-ai/web-xgrammar, installed here by
// `npm ci`) and matches the texts DIR/expected.txt gives it ("GRAMMAR TEXT
// ok|fail", the Go matcher's verdict): every byte accepted and the matcher
// able to end there. Prints a line for each grammar xgrammar refuses and
// each text it judges otherwise, then "checked G grammars, T texts";
// exits 1 when there was any such line. Run by TestEBNFInXGrammar.
"use strict";
const fs = require("fs");
const path = require("path");

// The package's main file is a UMD bundle that declares itself an ES
// module: run it as the CommonJS script it is.
function load() {
  const file = require.resolve("@mlc-ai/web-xgrammar/lib/index.js", { paths: [__dirname] });
  const mod = { exports: {} };
  new Function("exports", "module", "require", "__filename", "__dirname", fs.readFileSync(file, "utf8"))(
    mod.exports, mod, require, file, path.dirname(file));
  return mod.exports;
}

async function main() {
  const dir = process.argv[2];
  const { Grammar, GrammarCompiler, GrammarMatcher, TokenizerInfo } = load();
  const read = (name) => fs.readFileSync(path.join(dir, name), "utf8");
  const grammars = read("grammars.txt").split("\n").filter(Boolean);
  const texts = new Map();
  for (const line of read("expected.txt").split("\n").filter(Boolean)) {
    const [g, t, verdict] = line.split(" ");
    if (!texts.has(g)) texts.set(g, []);
    texts.get(g).push([t, verdict]);
  }
  const info = await TokenizerInfo.createTokenizerInfo([]);
  const compiler = await GrammarCompiler.createGrammarCompiler(info, false);
  let bad = 0, checked = 0;
  for (const name of grammars) {
    let compiled;
    try {
      compiled = await compiler.compileGrammar(await Grammar.fromEBNF(read(name), "root"));
    } catch (e) {
      console.log(`refused ${name}: ${String(e).slice(0, 300)}`);
      bad++;
      continue;
    }
    for (const [t, verdict] of texts.get(name) || []) {
      const matcher = await GrammarMatcher.createGrammarMatcher(compiled, undefined, true);
      const got = matcher._acceptString(read(t)) && matcher.isTerminated() ? "ok" : "fail";
      matcher.dispose();
      if (got !== verdict) {
        console.log(`disagree ${name} ${t}: xgrammar ${got}, Go ${verdict}`);
        bad++;
      }
      checked++;
    }
    compiled.dispose();
  }
  console.log(`checked ${grammars.length} grammars, ${checked} texts`);
  process.exit(bad ? 1 : 0);
}

main().catch((e) => {
  console.error(e);
  process.exit(2);
});
