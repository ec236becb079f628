package serve

import (
	"maps"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/beamharmony/harmony"
	"github.com/beamharmony/harmony/internal/jsonpath"
	"github.com/cespare/xxhash/v2"
)

// What coding agents (Claude Code, Codex, opencode) send that the
// gateway places, leaves out or does not apply, and how it says so
// (issue 32; docs/gap-decisions.md 110 to 117, docs/agents.md).

// The kinds of what is reported as not honoured: the label values of
// beamharmony_unhonoured_total.
const (
	// unhonouredHostedTool is a hosted tool the gateway cannot run
	// (Responses web_search, Messages server tools), left out.
	unhonouredHostedTool = "hosted_tool"
	// unhonouredBillingHeader is Claude Code's x-anthropic-billing-header
	// system block, metadata that is not for the model, left out.
	unhonouredBillingHeader = "billing_header"
	// unhonouredDeferredTool is a defer_loading tool declared in full
	// because the request constrains the generation (the grammar needs
	// every tool it may call).
	unhonouredDeferredTool = "deferred_tool"
	// unhonouredContextManagement is a context_management edit the
	// gateway does not apply.
	unhonouredContextManagement = "context_management"
	// unhonouredReasoningEcho is an assistant message before a turn's
	// calls that is the turn's reasoning (GitHub Copilot's CLI on the
	// Responses API): left out when it repeats the reasoning item, read
	// as the reasoning when the turn has none (--allow-missing-thinking).
	unhonouredReasoningEcho = "reasoning_echo"
	// unhonouredField is any other field accepted without effect.
	unhonouredField = "field"
)

// unhonouredKinds are the label values, exported at 0 from the start.
var unhonouredKinds = [...]string{unhonouredHostedTool, unhonouredBillingHeader, unhonouredDeferredTool, unhonouredContextManagement, unhonouredReasoningEcho, unhonouredField}

// lateInstructionsPlacements label beamharmony_late_instructions_total:
// where a late system or developer message went.
var lateInstructionsPlacements = [...]string{"instructions", "user_message", "refused"}

// unhonoured is one thing a request asked for that the gateway left out or
// did not apply: reported in the X-Beam-Unenforced header (path), the log
// record (path and why) and beamharmony_unhonoured_total (kind).
type unhonoured struct {
	path, kind, why string
}

// report notes that the value at path was not honoured.
func (r *request) report(path, kind, why string) {
	r.unhonoured = append(r.unhonoured, unhonoured{path: path, kind: kind, why: why})
}

// unreadWhy is why a member the gateway does not read is reported.
const unreadWhy = "not read by this gateway: accepted and not used"

// noteMembers notes the members unread holds, of the object at path or,
// with list, of each object of the list at path, to be reported with the
// request's top-level members (reportUnread). At most maxUnread are kept.
func (r *request) noteMembers(path string, list bool, unread *unreadSet) {
	for _, m := range unread.list {
		p := path
		if list {
			p += "[" + strconv.Itoa(m.elem) + "]"
		}
		r.noteMember(jsonpath.Key(p, m.key))
	}
	r.unreadMore = r.unreadMore || unread.more
}

// noteMember notes one member the gateway does not read, at path, unless
// it is an acceptedNoOp.
func (r *request) noteMember(path string) {
	if strings.HasSuffix(path, "."+acceptedNoOp) || strings.HasPrefix(path, threadMessagesPath+"[") || strings.HasPrefix(path, previousInputPath+"[") {
		// A thread's messages, and the items of earlier responses, were
		// reported when they were sent.
		return
	}
	if len(r.unreadNested) == maxUnread {
		r.unreadMore = true
		return
	}
	r.unreadNested = append(r.unreadNested, path)
}

// decodeMembers is decodeBodyUnread for the object at path (or, with a
// list, each object at path[i]) that notes the members dst has no field
// for.
func (r *request) decodeMembers(raw []byte, dst any, path string) error {
	var unread unreadSet
	if err := decodeBodyUnread(raw, dst, &unread); err != nil {
		return err
	}
	r.noteMembers(path, reflect.TypeOf(dst).Elem().Kind() == reflect.Slice, &unread)
	return nil
}

// decodeMembersIn is decodeMembers for the object at path+sub, a path
// built only when there is a member to note.
func (r *request) decodeMembersIn(raw []byte, dst any, path, sub string) error {
	var unread unreadSet
	if err := decodeBodyUnread(raw, dst, &unread); err != nil {
		return err
	}
	if len(unread.list) > 0 {
		r.noteMembers(path+sub, reflect.TypeOf(dst).Elem().Kind() == reflect.Slice, &unread)
	}
	return nil
}

// reportUnread reports the members of a request body its API does not
// read: keys, the top-level ones (decodeRequestBody), then those noted in
// nested objects, at most maxUnread in all; the last listed says when
// there are more (more: the body has others at the top level).
func (r *request) reportUnread(keys []string, more bool) {
	paths := make([]string, 0, len(keys)+len(r.unreadNested))
	for _, k := range keys {
		paths = append(paths, jsonpath.Key("", k))
	}
	paths = append(paths, r.unreadNested...)
	more = more || r.unreadMore
	if len(paths) > maxUnread {
		paths, more = paths[:maxUnread], true
	}
	for i, p := range paths {
		why := unreadWhy
		if more && i == len(paths)-1 {
			why += "; the body has more such members, not listed"
		}
		r.report(p, unhonouredField, why)
	}
}

// reportQuery reports the request URL's query parameters, which no
// endpoint reads, each as ?name (at most maxUnread), but Anthropic's SDK's
// beta=true on the Anthropic family: like the anthropic-beta header, an
// accepted no-op (docs/gap-decisions.md 111 and 244). Azure's OpenAI
// client sends api-version, for one.
func (r *request) reportQuery(q url.Values, fam apiFamily) {
	n := 0
	for _, k := range slices.Sorted(maps.Keys(q)) {
		if k == "beta" && fam == familyAnthropic {
			continue
		}
		if n == maxUnread {
			r.unhonoured[len(r.unhonoured)-1].why += "; the URL has more such parameters, not listed"
			return
		}
		r.report("?"+k, unhonouredField, "a query parameter this gateway does not read: accepted and not used")
		n++
	}
}

// reportUnhonoured sets the X-Beam-Unenforced header to every path the
// request's grammar and its decoding left out, and keeps the reasons for
// the log record. It runs once the request is ready to go to the engine.
func (c *exchange) reportUnhonoured(w http.ResponseWriter) {
	if len(c.req.unhonoured) == 0 {
		return
	}
	paths := slices.Clone(c.unenforced)
	for _, u := range c.req.unhonoured {
		paths = append(paths, u.path)
		c.s.metrics.unhonoured.With(c.ep.path, u.kind).Inc()
	}
	w.Header().Set(UnenforcedHeader, headerList(paths))
}

// unhonouredLog is the log record's list of what was not honoured, each
// "path: why".
func (c *exchange) unhonouredLog() []string {
	if c.req == nil || len(c.req.unhonoured) == 0 {
		return nil
	}
	out := make([]string, len(c.req.unhonoured))
	for i, u := range c.req.unhonoured {
		out[i] = u.path + ": " + u.why
	}
	return out
}

// noteLateInstructions counts the request's late instructions by where
// the renderer placed them (harmony.LateInstructions), and logs them.
func (c *exchange) noteLateInstructions() {
	for _, l := range harmony.LateInstructions(c.req.messages) {
		placement := "user_message"
		if l.Joined {
			placement = "instructions"
		}
		c.s.metrics.lateInstructions.With(c.ep.path, placement).Inc()
		c.lateInstructions++
	}
}

// lateInstructionsCode is the error code of a refused late instruction,
// by which the refusal is counted.
const lateInstructionsCode = "late_instructions"

// lateInstructionsError is the 400 for a late system or developer message
// at path when the server refuses them (--refuse-late-instructions). Its
// words are those other servers use for this case, which clients match to
// fall back (Claude Code resends with such messages folded into its first
// user turn when a 400 says "not supported" beside role "system", or
// "Unexpected role" beside "input message role", as Anthropic's API says):
// anthropic chooses Anthropic's wording, with OpenAI's case after it.
func lateInstructionsError(path, role string, anthropic bool) *apiError {
	msg := path + ": a message with role " + strconv.Quote(role) + " after the conversation has begun is not supported by this server " +
		"(--refuse-late-instructions); send system and developer messages before the first message of another role"
	if anthropic {
		msg = path + ": Unexpected role " + strconv.Quote(role) + ". The Messages API accepts a top-level `system` parameter, not " +
			strconv.Quote(role) + " as an input message role; role " + strconv.Quote(role) +
			" after the conversation has begun is not supported by this server (--refuse-late-instructions)"
	}
	return badRequest(path+".role", lateInstructionsCode, msg)
}

// refuseLateInstructions returns the refusal of the first late
// instruction among msgs, whose request paths origin gives (nil: the
// message's own index), or nil when the server places them or there is
// none.
func refuseLateInstructions(cfg *Config, msgs []harmony.Message, origin []string, anthropic bool) *apiError {
	if !cfg.RefuseLateInstructions {
		return nil
	}
	late := harmony.LateInstructions(msgs)
	if len(late) == 0 {
		return nil
	}
	l := late[0]
	path := messagePath(l.Index)
	if origin != nil {
		path = origin[l.Index]
	}
	return lateInstructionsError(path, l.Role, anthropic)
}

// newOptions are the template arguments every API starts from: a
// generation prompt, late instructions placed (or refused before
// rendering, with Config.RefuseLateInstructions), and Strict as the
// guard that nothing is dropped.
func newOptions() harmony.Options {
	return harmony.Options{AddGenerationPrompt: true, Strict: true, PlaceLateInstructions: true}
}

// clientConversationKey is the routing key of a conversation the client
// names (Anthropic's metadata.user_id, which Claude Code fills with its
// session, or the Responses API's prompt_cache_key): the router keeps the
// conversation on one replica by it, as it does by the first question's
// prompt otherwise. 0 means none.
func clientConversationKey(key string) uint64 {
	if key == "" {
		return 0
	}
	return xxhash.Sum64String("beamharmony client key\x00" + key)
}

// hostedResponsesTools are the Responses API's tool types that OpenAI
// runs itself (hosted tools), which a gateway without them cannot run.
var hostedResponsesTools = []string{"web_search", "web_search_preview", "web_search_preview_2025_03_11", "web_search_2025_08_26",
	"file_search", "code_interpreter", "computer_use_preview", "computer_use", "image_generation", "mcp", "local_shell"}

// isHostedResponsesTool reports whether typ is a hosted Responses tool.
func isHostedResponsesTool(typ string) bool {
	return slices.Contains(hostedResponsesTools, typ) || strings.HasPrefix(typ, "web_search_")
}

// isAnthropicServerTool reports whether typ is one of Anthropic's server
// tools, which Anthropic runs itself between generations: web search, web
// fetch, code execution, tool search.
func isAnthropicServerTool(typ string) bool {
	for _, p := range [...]string{"web_search_", "web_fetch_", "code_execution_", "tool_search_tool_"} {
		if strings.HasPrefix(typ, p) {
			return true
		}
	}
	return false
}

// hostedToolWhy is the reason logged for a hosted tool left out.
func hostedToolWhy(typ string) string {
	return "the hosted tool " + quoteText(typ) + " is left out of the prompt: this gateway cannot run it " +
		"(start the server with --refuse-hosted-tools to refuse it instead)"
}

// billingHeaderPrefix starts Claude Code's first system block, which
// carries its version and entry point for Anthropic's billing: metadata,
// not instructions, and it changes with every client version.
const billingHeaderPrefix = "x-anthropic-billing-header:"
