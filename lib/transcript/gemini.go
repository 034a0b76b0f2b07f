package transcript

import "strings"

// Gemini CLI writes ~/.gemini/tmp/<project>/chats/session-<iso>-<short>.jsonl:
// a header line ({sessionId, projectHash, startTime, kind}), then one
// message a line ({id, timestamp, type: user|gemini|info|error, content,
// thoughts, toolCalls}), and {"$set": …} records that restate the
// header's fields or the whole message array. A restatement carries
// nothing new, so it yields no event. A gemini message is written again
// under its id when its tool calls are added: each copy yields what it
// holds. Its logs.json beside the chats holds only the user's prompts,
// which the chat file has too, so it is not read.
func geminiRecord(line []byte) ([]Event, Session) {
	m, ok := decode(line)
	if !ok {
		return notJSON(line), Session{}
	}
	if _, ok := m["$set"]; ok {
		return nil, Session{}
	}
	ts := str(m, "timestamp")
	if sid := str(m, "sessionId"); sid != "" && str(m, "type") == "" {
		return []Event{ev(SessionMeta, str(m, "startTime"), "gemini session "+str(m, "kind"))}, Session{SessionID: sid}
	}
	typ := str(m, "type")
	switch typ {
	case "user":
		return geminiUser(ts, m), Session{}
	case "gemini":
		return geminiModel(ts, m), Session{Model: str(m, "model")}
	case "info", "warning":
		return []Event{bookkeeping(ts, typ+" "+firstLine(texts(m["content"])))}, Session{}
	case "error":
		body := texts(m["content"])
		return []Event{ev(TurnBoundary, ts, "error "+body)}, Session{}
	}
	return []Event{unknownRecord(ts, typ)}, Session{}
}

func geminiUser(ts string, m jobj) []Event {
	var out []Event
	var text []string
	att := int64(0)
	if s, ok := m["content"].(string); ok {
		text = append(text, s)
	}
	for _, b := range list(m, "content") {
		blk, _ := b.(jobj)
		switch {
		case blk["text"] != nil:
			text = append(text, str(blk, "text"))
		case blk["functionResponse"] != nil:
			fr := sub(blk, "functionResponse")
			body := str(fr, "response", "output")
			if body == "" {
				body = compact(fr["response"])
			}
			out = append(out, ev(ToolResult, ts, body, Field{"tool", str(fr, "name")}, Field{"call_id", str(fr, "id")}, bytesField(body)))
		case blk["inlineData"] != nil, blk["fileData"] != nil:
			att++
		default:
			out = append(out, unknownRecord(ts, "user part"))
		}
	}
	if t := strings.Join(text, "\n"); t != "" || att > 0 {
		out = append([]Event{ev(UserMessage, ts, t, bytesField(t), Field{"attachments", att})}, out...)
	}
	return out
}

func geminiModel(ts string, m jobj) []Event {
	var out []Event
	// Thoughts stream in as fragments, each with its own subject or
	// description: one thinking event holds them all.
	var thoughts []string
	tts := ""
	for _, t := range list(m, "thoughts") {
		th, _ := t.(jobj)
		if tts == "" {
			tts = str(th, "timestamp")
		}
		for _, k := range []string{"subject", "description"} {
			if s := str(th, k); s != "" {
				thoughts = append(thoughts, s)
			}
		}
	}
	if body := strings.Join(thoughts, " "); body != "" {
		if tts == "" {
			tts = ts
		}
		out = append(out, ev(Thinking, tts, body, bytesField(body)))
	}
	// content is a string, or (when a session is resumed) a list of parts
	// that may carry the function calls themselves.
	if s, ok := m["content"].(string); ok && s != "" {
		out = append(out, ev(AssistantText, ts, s, bytesField(s)))
	}
	for _, b := range list(m, "content") {
		blk, _ := b.(jobj)
		switch {
		case blk["text"] != nil:
			t := str(blk, "text")
			out = append(out, ev(AssistantText, ts, t, bytesField(t)))
		case blk["functionCall"] != nil:
			fc := sub(blk, "functionCall")
			out = append(out, ev(ToolCall, ts, toolBody(str(fc, "name"), fc["args"]), Field{"tool", str(fc, "name")}, Field{"call_id", str(fc, "id")}))
		}
	}
	for _, c := range list(m, "toolCalls") {
		tc, _ := c.(jobj)
		out = append(out, ev(ToolCall, ts, toolBody(str(tc, "name"), tc["args"]), Field{"tool", str(tc, "name")},
			Field{"call_id", str(tc, "id")}, Field{"status", str(tc, "status")}))
	}
	return out
}
