package transcript

import "fmt"

// Claude Code writes one JSON object a line to
// ~/.claude/projects/<cwd-slug>/<session>.jsonl (docs/transcript.md): user
// and assistant messages whose content is a string or a list of blocks,
// system records with a subtype, attachments, and the bookkeeping records
// it keeps for its own UI. Every message record carries sessionId, cwd and
// version.
func claudeRecord(line []byte) ([]Event, Session) {
	m, ok := decode(line)
	if !ok {
		return notJSON(line), Session{}
	}
	meta := Session{SessionID: str(m, "sessionId"), CWD: str(m, "cwd"), Version: str(m, "version"),
		Model: str(m, "message", "model")}
	ts := str(m, "timestamp")
	typ := str(m, "type")
	switch typ {
	case "user":
		return claudeUser(m, ts), meta
	case "assistant":
		return claudeAssistant(m, ts), meta
	case "system":
		st := str(m, "subtype")
		switch st {
		case "turn_duration":
			return []Event{ev(TurnBoundary, ts, "end turn_duration", Field{"duration_ms", numOrNil(m, "durationMs")})}, meta
		case "compact_boundary":
			return []Event{ev(Compaction, ts, "compact_boundary")}, meta
		case "stop_hook_summary", "informational", "local_command", "api_error", "away_summary":
			return []Event{bookkeeping(ts, "system "+st)}, meta
		}
		return []Event{unknownRecord(ts, "system "+st)}, meta
	case "attachment":
		a := sub(m, "attachment")
		at := str(a, "type")
		if at == "hook_permission_decision" {
			return []Event{ev(PermissionRequest, ts, fmt.Sprintf("%s (%s hook)", str(a, "decision"), str(a, "hookEvent")),
				Field{"call_id", str(a, "toolUseID")}, Field{"decision", str(a, "decision")})}, meta
		}
		return []Event{ev(Attachment, ts, fmt.Sprintf("%s (%d bytes)", at, len(compact(a))), Field{"type", at})}, meta
	case "mode", "permission-mode", "file-history-snapshot", "ai-title", "last-prompt", "summary",
		"custom-title", "queue-operation", "tag", "agent-name", "pr-link":
		return []Event{bookkeeping(ts, typ)}, meta
	}
	return []Event{unknownRecord(ts, typ)}, meta
}

func numOrNil(m jobj, path ...string) any {
	if n, ok := num(m, path...); ok {
		return n
	}
	return nil
}

func claudeUser(m jobj, ts string) []Event {
	if b, _ := m["isCompactSummary"].(bool); b {
		return []Event{ev(Compaction, ts, texts(dig(m, "message", "content")))}
	}
	content := dig(m, "message", "content")
	if s, ok := content.(string); ok {
		return []Event{ev(UserMessage, ts, s, bytesField(s), Field{"attachments", int64(0)})}
	}
	var out []Event
	var text string
	attachments := int64(0)
	for _, b := range list(m, "message", "content") {
		blk, _ := b.(jobj)
		switch str(blk, "type") {
		case "text":
			if text != "" {
				text += "\n"
			}
			text += str(blk, "text")
		case "image", "document":
			attachments++
		case "tool_result":
			body := texts(blk["content"])
			isErr, _ := blk["is_error"].(bool)
			out = append(out, ev(ToolResult, ts, body, Field{"call_id", str(blk, "tool_use_id")},
				Field{"is_error", isErr}, bytesField(body)))
		default:
			out = append(out, unknownRecord(ts, "user block "+str(blk, "type")))
		}
	}
	if text != "" || attachments > 0 {
		out = append([]Event{ev(UserMessage, ts, text, bytesField(text), Field{"attachments", attachments})}, out...)
	}
	return out
}

func claudeAssistant(m jobj, ts string) []Event {
	var out []Event
	for _, b := range list(m, "message", "content") {
		blk, _ := b.(jobj)
		switch str(blk, "type") {
		case "text":
			t := str(blk, "text")
			out = append(out, ev(AssistantText, ts, t, bytesField(t)))
		case "thinking":
			t := str(blk, "thinking")
			out = append(out, ev(Thinking, ts, t, bytesField(t)))
		case "redacted_thinking":
			out = append(out, ev(Thinking, ts, "(redacted)", Field{"bytes", int64(0)}))
		case "tool_use":
			name := str(blk, "name")
			kind := ToolCall
			if name == "Task" || name == "Agent" {
				kind = SubagentRef // the call starts a subagent with a transcript of its own
			}
			out = append(out, ev(kind, ts, toolBody(name, blk["input"]), Field{"tool", name}, Field{"call_id", str(blk, "id")}))
		default:
			out = append(out, unknownRecord(ts, "assistant block "+str(blk, "type")))
		}
	}
	return out
}
