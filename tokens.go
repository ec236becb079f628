package harmony

import (
	"context"
	"errors"
	"fmt"
)

// TokenEncoder is what RenderTokens needs of a tokenizer: the id of each
// marker, and the model pipeline (normalizer, pre-tokenizer, BPE) for the
// text between markers, with no added-token matching, so that marker text
// inside that text stays ordinary text. *tokenizer.Tokenizer (package
// github.com/beamharmony/harmony/tokenizer) implements it.
type TokenEncoder interface {
	// TokenToID returns the id of a token of the vocabulary, markers
	// included.
	TokenToID(token string) (id int, ok bool)
	// AppendEncodeOrdinary appends the ids of text, encoded as plain
	// text, to dst.
	AppendEncodeOrdinary(dst []int, text string) []int
}

// Tokens is a prompt rendered to token ids, as Hugging Face's
// apply_chat_template(..., tokenize=True, return_dict=True,
// return_assistant_tokens_mask=True) returns it (page: Training masks).
type Tokens struct {
	// Text is the rendered prompt, as Render returns it.
	Text string
	// InputIDs are the prompt's token ids. The markers the renderer
	// writes are marker tokens; every other byte, message content
	// included, is encoded as ordinary text, so marker text inside
	// content can't forge a message boundary.
	InputIDs []int
	// AssistantMasks has one entry per id: 1 for the tokens of the
	// assistant's output (each turn from its first <|channel|> through its
	// <|return|> or <|call|>), 0 elsewhere.
	AssistantMasks []int
}

// ErrMarkerNotInVocabulary reports a tokenizer without a token for one of
// the format's markers: it is not Beam's tokenizer.
var ErrMarkerNotInVocabulary = errors.New("the tokenizer has no token for a marker of the format")

// A ContextTokenEncoder is a TokenEncoder whose encoding can be stopped:
// AppendEncodeOrdinaryContext is AppendEncodeOrdinary, with an error when
// ctx is done or the encoder's own time limit passes (a backtracking
// pre-tokenizer pattern on a hostile text). *tokenizer.Tokenizer
// implements it.
type ContextTokenEncoder interface {
	TokenEncoder
	AppendEncodeOrdinaryContext(ctx context.Context, dst []int, text string) ([]int, error)
}

// RenderTokens renders messages as Render does and encodes the prompt with
// enc. The markers the renderer writes become their tokens; the text
// between them is encoded by enc's model pipeline. For a prompt whose
// content holds no marker text, InputIDs equal what the tokenizer's Encode
// gives for the rendered text, since a Hugging Face tokenizer also cuts the
// text at its added tokens (the markers) before encoding the pieces.
//
// The mask follows transformers' return_assistant_tokens_mask rule: for each
// assistant span [s, e) in characters, the tokens from char_to_token(s)
// through char_to_token(e-1) are marked. Beam's spans begin and end with
// marker tokens, so the rule's edge cases (a span start inside no token
// stops the marking; an end inside no token, or in token 0, marks to the
// end of the prompt) can't arise here, and the masked tokens are exactly
// those of each span.
//
// RenderTokens is bounded by ctx: it returns ctx's error once ctx is done,
// between the texts it encodes and, when enc is a ContextTokenEncoder,
// within them; an error of the encoder is returned wrapped. Serve a
// request with its deadline, so that no text can hold a core past it;
// with context.Background(), an encoder that is a ContextTokenEncoder
// still applies its own time limits.

func RenderTokens(ctx context.Context, messages []Message, opts *Options, enc TokenEncoder) (*Tokens, error) {
	ids, err := markerIDs(enc)
	if err != nil {
		return nil, err
	}
	r := renderer{opts: opts, s: getScratch(), wantSpans: true, wantMarks: true}
	defer r.release()
	if err := r.render(messages); err != nil {
		return nil, err
	}
	return r.tokens(ctx, enc, &ids)
}

// RenderTokens renders the request to token ids with assistant masks,
// bounded by ctx as the function RenderTokens is.
func (r *Request) RenderTokens(ctx context.Context, enc TokenEncoder) (*Tokens, error) {
	if err := r.checkUnknownKeys(); err != nil {
		return nil, err
	}
	return RenderTokens(ctx, r.Messages, &r.Options, enc)
}

// markerIDs looks up the id of every marker, in the order of markers.
func markerIDs(enc TokenEncoder) (ids [len(markers)]int, err error) {
	if enc == nil {
		return ids, errors.New("RenderTokens: no tokenizer")
	}
	for i, mk := range markers {
		id, ok := enc.TokenToID(mk)
		if !ok {
			return ids, fmt.Errorf("%w: %s", ErrMarkerNotInVocabulary, mk)
		}
		ids[i] = id
	}
	return ids, nil
}

// tokens encodes the rendered prompt: the text between the recorded marks
// with enc, each mark as its marker's id, and the mask over the spans.
func (r *renderer) tokens(ctx context.Context, enc TokenEncoder, markerID *[len(markers)]int) (*Tokens, error) {
	cenc, _ := enc.(ContextTokenEncoder)
	encode := func(ids []int, text string) ([]int, error) {
		if cenc != nil {
			ids, err := cenc.AppendEncodeOrdinaryContext(ctx, ids, text)
			if err != nil {
				return nil, fmt.Errorf("encoding the prompt's text: %w", err)
			}
			return ids, nil
		}
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("encoding the prompt's text: %w", err)
		}
		return enc.AppendEncodeOrdinary(ids, text), nil
	}
	text := string(r.buf)
	out := &Tokens{Text: text, InputIDs: make([]int, 0, len(text)/3+len(r.marks))}
	ids := out.InputIDs
	var masked []Span // token index ranges [Start, End)
	span, spanTok := 0, -1
	prev := 0
	for _, at := range r.marks {
		if at > prev {
			var err error
			if ids, err = encode(ids, text[prev:at]); err != nil {
				return nil, err
			}
		}
		k := markerIndex(text[at:])
		if span < len(r.spans) && r.spans[span].Start == at {
			spanTok = len(ids)
		}
		ids = append(ids, markerID[k])
		prev = at + len(markers[k])
		if span < len(r.spans) && r.spans[span].End == prev {
			masked = append(masked, Span{spanTok, len(ids)})
			span++
		}
	}
	if prev < len(text) {
		var err error
		if ids, err = encode(ids, text[prev:]); err != nil {
			return nil, err
		}
	}
	out.InputIDs = ids
	out.AssistantMasks = make([]int, len(ids))
	for _, s := range masked {
		for i := s.Start; i < s.End; i++ {
			out.AssistantMasks[i] = 1
		}
	}
	return out, nil
}

// markerIndex returns the index in markers of the marker s starts with.
// The renderer recorded s as starting with one.
func markerIndex(s string) int {
	for i, mk := range markers {
		if len(s) >= len(mk) && s[:len(mk)] == mk {
			return i
		}
	}
	panic("harmony: a recorded mark is not a marker")
}
