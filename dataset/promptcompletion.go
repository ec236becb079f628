package dataset

import (
	"encoding/json"
	"fmt"
	"strconv"
)

// TRL's conversational prompt-completion rows, {"prompt": [messages],
// "completion": [messages]}, are read as one conversation: the prompt's
// messages, then the completion's (gap decision 284). TRL trains such
// rows on the completion only; assistant_masks covers every assistant
// turn, so a prompt that holds an assistant turn is a reject (its tokens
// would be trained on), and so is the text form ({"prompt": "...",
// "completion": "..."}), which has no roles for Beam's format. A row is
// read so only when it has no messages.

// fromPromptCompletion returns a row in the prompt-completion shape as
// one with messages; ok is false when the row is not in that shape.
func fromPromptCompletion(data []byte) (out []byte, ok bool, err error) {
	var row map[string]json.RawMessage
	if json.Unmarshal(data, &row) != nil {
		return nil, false, nil
	}
	if _, has := row["messages"]; has {
		return nil, false, nil
	}
	prompt, hasPrompt := row["prompt"]
	completion, hasCompletion := row["completion"]
	if !hasPrompt || !hasCompletion {
		return nil, false, nil
	}
	var pText, cText string
	if json.Unmarshal(prompt, &pText) == nil || json.Unmarshal(completion, &cText) == nil {
		return nil, true, fmt.Errorf("prompt, completion: text (TRL's standard prompt-completion form), which has no roles for Beam's format; " +
			`write them as messages, [{"role": "user", ...}] and [{"role": "assistant", ...}]`)
	}
	var pm, cm []map[string]json.RawMessage
	if err := json.Unmarshal(prompt, &pm); err != nil {
		return nil, true, fmt.Errorf("prompt: must be a list of messages: %v", err)
	}
	if err := json.Unmarshal(completion, &cm); err != nil {
		return nil, true, fmt.Errorf("completion: must be a list of messages: %v", err)
	}
	if len(cm) == 0 {
		return nil, true, fmt.Errorf("completion: empty; it must hold the assistant's turn")
	}
	for i, m := range pm {
		var role string
		if json.Unmarshal(m["role"], &role) == nil && role == "assistant" {
			return nil, true, fmt.Errorf("prompt[%s]: an assistant turn in the prompt would be in assistant_masks, which TRL leaves out of a "+
				"prompt-completion row's loss; put such a conversation in messages", strconv.Itoa(i))
		}
	}
	delete(row, "prompt")
	delete(row, "completion")
	row["messages"], _ = json.Marshal(append(pm, cm...))
	out, err = json.Marshal(row)
	return out, true, err
}
