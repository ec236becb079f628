package harmony

// Late instructions: system and developer messages that come after a
// message of another role. The template does not render them (page:
// Instructions); Options.PlaceLateInstructions renders them by the rule
// below instead, which the gateway, render, lint and dataset share
// (docs/gap-decisions.md 110).

// LateInstructionsHeading starts the user message that carries a late
// instruction after an assistant turn: the heading of the developer
// message's own instructions section, under which Beam reads
// instructions.
const LateInstructionsHeading = "# Instructions\n\n"

// LateInstruction is a system or developer message that comes after a
// message of another role, and where the rule places it.
type LateInstruction struct {
	// Index is the message's index in the conversation.
	Index int
	// Role is system or developer.
	Role string
	// Joined is true when the message comes before the first assistant
	// turn and joins the instructions; false when it comes after one and
	// is written in its place as a user message.
	Joined bool
}

// LateInstructions lists the late instructions of a conversation, in
// order, with where Options.PlaceLateInstructions puts each.
func LateInstructions(messages []Message) []LateInstruction {
	var late []LateInstruction
	first := firstAssistant(messages)
	seenOther := false
	for i := range messages {
		m := &messages[i]
		if !isInstruction(m) {
			seenOther = true
			continue
		}
		if seenOther {
			late = append(late, LateInstruction{Index: i, Role: m.Role, Joined: i < first})
		}
	}
	return late
}

// PlaceInstructions returns the conversation that the template renders
// as Render renders messages with Options.PlaceLateInstructions: late
// instructions before the first assistant turn moved, in order, to the
// end of the leading instructions, and those after an assistant turn
// turned into user messages whose content is LateInstructionsHeading
// followed by theirs. origin[i] is the index in messages of the message
// placed at i. A conversation without late instructions is returned as
// it is, with a nil origin. messages is not modified.
func PlaceInstructions(messages []Message) (placed []Message, origin []int) {
	late := LateInstructions(messages)
	if len(late) == 0 {
		return messages, nil
	}
	placed = make([]Message, 0, len(messages))
	origin = make([]int, 0, len(messages))
	lead := 0
	for lead < len(messages) && isInstruction(&messages[lead]) {
		placed = append(placed, messages[lead])
		origin = append(origin, lead)
		lead++
	}
	for _, l := range late {
		if l.Joined {
			placed = append(placed, messages[l.Index])
			origin = append(origin, l.Index)
		}
	}
	k := 0
	for i := lead; i < len(messages); i++ {
		m := messages[i]
		if k < len(late) && late[k].Index == i {
			joined := late[k].Joined
			k++
			if joined {
				continue
			}
			m = Message{Role: RoleUser, Content: LateInstructionsHeading + m.Content}
		}
		placed = append(placed, m)
		origin = append(origin, i)
	}
	return placed, origin
}

// firstAssistant returns the index of the first assistant message, or
// len(messages) when there is none.
func firstAssistant(messages []Message) int {
	for i := range messages {
		if messages[i].Role == RoleAssistant {
			return i
		}
	}
	return len(messages)
}
