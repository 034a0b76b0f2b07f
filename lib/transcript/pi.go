package transcript

// pi writes ~/.pi/agent/sessions/--<cwd-slug>--/<iso>_<session>.jsonl: a
// session header, then entries (message, model_change, ...). A message
// carries its role; tool results have a role of their own (toolResult), so
// a message is dispatched on its role first.
func piRecord(line []byte) ([]Event, Session) {
	m, ok := decode(line)
	if !ok {
		return notJSON(line), Session{}
	}
	ts := str(m, "timestamp")
	typ := str(m, "type")
	switch typ {
	case "session":
		// Its version is the session file's format, not pi's: the
		// envelope's version stays null.
		meta := Session{SessionID: str(m, "id"), CWD: str(m, "cwd")}
		return []Event{ev(SessionMeta, ts, "pi session in "+meta.CWD)}, meta
	case "model_change":
		return []Event{bookkeeping(ts, "model_change")}, Session{Model: str(m, "modelId")}
	case "thinking_level_change", "label", "custom", "session_info":
		return []Event{bookkeeping(ts, typ)}, Session{}
	case "compaction":
		return []Event{ev(Compaction, ts, "compaction "+firstLine(str(m, "summary")))}, Session{}
	case "branch_summary":
		return []Event{ev(Compaction, ts, "branch_summary "+firstLine(str(m, "summary")))}, Session{}
	case "message":
		msg := sub(m, "message")
		return piMessage(ts, msg), Session{Model: str(msg, "model")}
	}
	return []Event{unknownRecord(ts, typ)}, Session{}
}

func piMessage(ts string, msg jobj) []Event {
	role := str(msg, "role")
	switch role {
	case "user":
		text := ""
		att := int64(0)
		if s, ok := msg["content"].(string); ok {
			text = s
		}
		for _, b := range list(msg, "content") {
			blk, _ := b.(jobj)
			switch str(blk, "type") {
			case "text":
				if text != "" {
					text += "\n"
				}
				text += str(blk, "text")
			case "image":
				att++
			}
		}
		return []Event{ev(UserMessage, ts, text, bytesField(text), Field{"attachments", att})}
	case "assistant":
		var out []Event
		for _, b := range list(msg, "content") {
			blk, _ := b.(jobj)
			switch str(blk, "type") {
			case "text":
				t := str(blk, "text")
				out = append(out, ev(AssistantText, ts, t, bytesField(t)))
			case "thinking":
				t := str(blk, "thinking")
				out = append(out, ev(Thinking, ts, t, bytesField(t)))
			case "toolCall":
				name := str(blk, "name")
				out = append(out, ev(ToolCall, ts, toolBody(name, blk["arguments"]), Field{"tool", name}, Field{"call_id", str(blk, "id")}))
			default:
				out = append(out, unknownRecord(ts, "assistant block "+str(blk, "type")))
			}
		}
		if e := str(msg, "errorMessage"); e != "" {
			out = append(out, ev(TurnBoundary, ts, "error "+e, Field{"stop_reason", str(msg, "stopReason")}))
		}
		return out
	case "toolResult":
		body := texts(msg["content"])
		isErr, _ := msg["isError"].(bool)
		return []Event{ev(ToolResult, ts, body, Field{"tool", str(msg, "toolName")}, Field{"call_id", str(msg, "toolCallId")},
			Field{"is_error", isErr}, bytesField(body))}
	case "bashExecution":
		body := str(msg, "command")
		return []Event{ev(ToolCall, ts, toolBody("bash", body), Field{"tool", "bash"}, Field{"call_id", ""})}
	}
	return []Event{unknownRecord(ts, "message "+role)}
}
