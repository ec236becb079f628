package serve

import (
	"context"
	"errors"

	"github.com/beamharmony/harmony"
	"github.com/beamharmony/harmony/tokenizer"
)

// renderTokens renders the request with the server's tokenizer, bounded by
// the client's context and the server's timeout: a text that a
// backtracking split pattern would take too long on ends the request with
// a 400, and a client that leaves stops the work (issue 17).
func (c *exchange) renderTokens(req *request) (*harmony.Tokens, *apiError) {
	ctx, cancel := context.WithTimeout(c.clientCtx, c.s.cfg.timeout())
	defer cancel()
	// At most Config.MaxPromptBytes of text is tokenized (generate.go).
	capped := &cappedEncoder{enc: c.s.cfg.Tokenizer, left: c.s.cfg.maxPromptBytes()}
	toks, err := harmony.RenderTokens(ctx, req.messages, &req.opts, capped)
	if err == nil {
		if capped.over {
			return nil, promptTooLarge(len(toks.Text), c.s.cfg.maxPromptBytes())
		}
		return toks, nil
	}
	switch {
	case errors.Is(context.Cause(c.clientCtx), errShutdown):
		return nil, shutdownError()
	case c.clientCtx.Err() != nil:
		return nil, &apiError{status: statusClientClosed, kind: kindClientClosed, code: "client_closed", msg: "client closed the request"}
	case ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, tokenizer.ErrTimeout):
		return nil, paramError("messages", "tokenize_timeout", "the server's tokenizer could not encode the prompt within its time limit "+
			"(its split pattern backtracks too long on this text); change or shorten the text")
	}
	return nil, renderError(err)
}
