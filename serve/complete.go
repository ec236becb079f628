package serve

import (
	"errors"
	"io"
	"net/http"

	"github.com/beamharmony/harmony"
	"github.com/beamharmony/harmony/internal/pyjson"
)

// A generation that is not streamed: one engine completion (or one per
// round of the gateway's web search), parsed whole.

// completeRounds runs a non-streamed generation and, for a request with a
// hosted web search, the generations that follow its built-in calls
// (websearch.go).
func (c *exchange) completeRounds() (*harmony.Parsed, genEnd, *apiError) {
	for {
		p, end, aerr := c.complete()
		if aerr != nil || c.req.search == nil {
			return p, end, aerr
		}
		step, aerr := c.afterGeneration(&p.Message, &end, nil, nil)
		if aerr != nil {
			return nil, end, aerr
		}
		if step != searchAgain {
			c.totalUsage()
			return p, end, nil
		}
	}
}

func (c *exchange) parseOptions() *harmony.ParseOptions {
	return &harmony.ParseOptions{Prefix: c.prompt, Tools: c.req.parseTools}
}

// checkFinish refuses an engine finish reason other than stop and length.
func checkFinish(finish string) *apiError {
	switch finish {
	case "stop", "length":
		return nil
	}
	return engineError("engine_finish", "engine stopped the generation with finish_reason "+quoteText(string(truncate([]byte(finish), 40))))
}

// modelOutputError is the 502 for a generation that is not Beam Harmony.
func modelOutputError(err error) *apiError {
	return &apiError{status: http.StatusBadGateway, kind: kindModelOutput, code: "invalid_model_output",
		msg: "the model's output is not valid Beam Harmony: " + err.Error()}
}

// complete runs a non-streamed generation: one engine completion, parsed
// whole.
func (c *exchange) complete() (*harmony.Parsed, genEnd, *apiError) {
	var end genEnd
	resp, aerr := c.s.send(c, c.completionRequest())
	if aerr != nil {
		return nil, end, aerr
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxEngineBody+1))
	if err != nil {
		return nil, end, c.transportError(err, "engine_read", "reading the engine's reply")
	}
	if len(data) > maxEngineBody {
		return nil, end, engineError("engine_bad_reply", "engine reply larger than 64 MiB")
	}
	var comp completion
	if err := decodeCompletion(new(pyjson.Doc), data, &comp); err != nil {
		return nil, end, engineError("engine_bad_reply", "the engine answered something that is not a completion").
			withDetail(err.Error() + ": " + string(truncate(data, 200)))
	}
	if f := comp.engineFailure(); f != nil {
		return nil, end, f
	}
	ch := comp.choice()
	switch {
	case len(comp.Choices) == 0:
		return nil, end, engineError("engine_bad_reply", "engine answered a completion without choices")
	case ch == nil:
		return nil, end, engineError("engine_bad_reply", "engine answered a completion without a choice of index 0")
	}
	c.noteUsage(&comp)
	c.inspectGenerated(ch.Text)
	end.finish = ch.FinishReason
	if end.finish == "" {
		end.finish = "stop"
	}
	if f := checkFinish(end.finish); f != nil {
		return nil, end, f
	}
	hold := stopHold{stops: c.req.stop}
	text := hold.push(ch.Text) + hold.finish(end.finish, ch.StopReason)
	end.stop = hold.matched
	text += missingEnd(text, end.finish, ch.StopReason)
	parsed, perr := harmony.Parse(text, c.parseOptions())
	if parsed == nil && perr == nil {
		perr = errors.New("the parser returned nothing")
	}
	if perr != nil {
		if end.finish != "length" || parsed == nil {
			return nil, end, modelOutputError(perr)
		}
		// Cut off by max_tokens: what was parsed goes out, an unfinished
		// call left out (DECISIONS.md, Serving).
		c.warnings = append(c.warnings, "cut by length: "+perr.Error())
	}
	c.noteParsed(parsed)
	if lim := c.req.maxCalls; lim > 0 && len(parsed.Message.ToolCalls) > lim {
		c.warnings = append(c.warnings, "kept the first of "+itoa(int64(len(parsed.Message.ToolCalls)))+
			" tool calls (parallel tool calls are off)")
		parsed.Message.ToolCalls = parsed.Message.ToolCalls[:lim]
		end.finish, end.stop = "stop", ""
	}
	end.calls = len(parsed.Message.ToolCalls)
	return parsed, end, nil
}

// noteUsage keeps the engine's usage, when comp has one; one the decoder
// dropped is a warning in the log, and the client gets no usage.
func (c *exchange) noteUsage(comp *completion) {
	switch {
	case comp.Usage != nil:
		c.usage = comp.Usage
	case comp.BadUsage != "":
		c.usage = nil
		c.warnings = append(c.warnings, "dropped the engine's usage: "+comp.BadUsage)
	}
}

// noteParsed keeps the parser's warnings and any text after the end
// marker for the log.
func (c *exchange) noteParsed(p *harmony.Parsed) {
	c.inspectParsed(p)
	if p == nil {
		return
	}
	for _, w := range p.Warnings {
		c.warnings = append(c.warnings, w.String())
	}
	if p.Rest != "" {
		c.warnings = append(c.warnings, "text after "+p.End+" was not parsed: "+string(truncate([]byte(p.Rest), 80)))
	}
}
