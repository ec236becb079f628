// Package harmony reads and writes the Beam Harmony format: the text format
// of the Beam model, a variant of OpenAI's Harmony for gpt-oss in which tool
// calls carry XML arguments.
//
// A conversation is a sequence of messages, each opened by <|start|> and the
// speaker and closed by <|end|>, <|call|> or <|return|>:
//
//	<|start|>user<|message|>What is 2 + 2?<|end|>
//	<|start|>assistant<|channel|>analysis<|message|>Simple arithmetic.<|end|>
//	<|start|>assistant<|channel|>final<|message|>4<|return|>
//
// (the prompt has no line breaks between messages). Every assistant turn
// starts with its reasoning on the analysis channel, then either answers on
// the final channel or calls tools, one message per call:
//
//	<|start|>assistant to=get_weather<|channel|>analysis <|constrain|>xml<|message|><rfl:parameter name="city">
//	London
//	</rfl:parameter><|call|>
//
// # Rendering
//
// Render (and RenderPrompt, which also returns the assistant spans used as
// training masks) turns OpenAI / Hugging Face style messages and tools into
// the prompt exactly as the checkpoint's chat_template.jinja does: the system
// message with the reasoning effort, the instructions, the tools declared as
// TypeScript, reasoning carried across turns, tool calls with XML arguments
// and their results. Request decodes the JSON shape the command line reads.
// JSON values written into the prompt keep their key order and number
// literals and are spelled as Python's json.dumps(ensure_ascii=False) spells
// them, because the template runs in Python.
//
// # Parsing
//
// Parse turns generated text back into a Message: reasoning, content and
// tool calls with arguments cast by the tools' schemas. StreamParser does the
// same incrementally, emitting region events as text becomes certain, with
// the same result for every way of cutting the input into chunks.
//
// # Errors
//
// Input that cannot be decoded or rendered returns a *RenderError whose path
// names the offending value ("messages[3].tool_calls[0].function.arguments: ..."),
// or, for the errors the format page words itself, the page's exact text.
// ParseRequest and the UnmarshalJSON methods return no other error type.
//
// The rules come from the format page and the project's DECISIONS.md; the
// few choices neither makes are listed in docs/gap-decisions.md.
//
// # API
//
// The whole of the package, one entry per task (TestAPILists keeps this
// list and the package's exported names the same):
//
//   - Messages and tools: [Message], [ToolCall], [FunctionCall], [Tool],
//     [Function], with the roles ([RoleSystem] ...) and the built-in tools
//     Beam was trained with, [TrainedSearch] and [TrainedBrowse].
//   - Requests: [ParseRequest] decodes the command line's JSON into a
//     [Request], whose methods render it ([ParseMessages] decodes a list
//     of messages alone, as a gateway reads a body's messages, and
//     [ParseMessagesUnread] also names the members it does not read, for
//     a gateway to report); [Options]
//     holds what a request
//     sets besides its messages: tools, [ReasoningEffort] (made by
//     [Effort] or [EffortLabel]; [DefaultEffort], [MinTrainedEffort]), the
//     model identity ([DefaultModelIdentity]), the generation prompt.
//   - Rendering: [Render] (the prompt), [RenderPrompt] (a [Prompt]: the
//     prompt with its assistant [Span]s, the training masks), [RenderTokens]
//     (a [Tokens]: token ids and masks, through a [TokenEncoder] such as
//     package tokenizer's, bounded by a context, within each text when it
//     is a [ContextTokenEncoder]; [ErrMarkerNotInVocabulary]).
//   - Parsing generations: [Parse] (a [Parsed]) and [StreamParser] (from
//     [NewStreamParser]: [Event]s of an [EventType] as text becomes
//     certain, with the same result), both with [ParseOptions]
//     ([DefaultMaxBufferedBytes]); a [ParseError] says where the text left
//     the format.
//   - Checks: [Lint] ([Warning]s, each naming a [Field]; [Request.Lint]
//     adds the keys of a request nothing reads, [Request.UnknownKeys]
//     lists those alone), [MissingReasoning]
//     and [ErrMissingReasoning], [UnresolvedRefs] (a tool schema's [RefUse]s
//     that name nothing); [DecodeArguments] (a call's arguments as OpenAI
//     sends them, [ErrArgumentsString]).
//   - The format's parts: the markers ([MarkerStart] ..., [Markers],
//     [FindMarker], [MarkerUses] and [MarkerUse]), [DeclareTool] (a tool
//     as the prompt declares it), late instructions ([PlaceInstructions],
//     [LateInstructions], [LateInstruction], [LateInstructionsHeading]).
//   - Errors: a [RenderError] names the JSON path of what is wrong; a
//     [SyntaxError] is invalid JSON with its byte offset;
//     [ErrInvalidEffort].
package harmony
