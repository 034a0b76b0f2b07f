package transcript

import "fmt"

// Codex CLI writes a rollout, $CODEX_HOME/sessions/YYYY/MM/DD/
// rollout-<iso>-<session>.jsonl: {timestamp, type, payload} a line. It
// writes each turn twice, once as event_msg for its UI and once as
// response_item for the model, and the model's copy of a user message
// carries the context Codex injects. So prose comes from event_msg
// (item_completed in 0.171, user_message/agent_message before), tool calls
// and results from response_item, and each one's other copy is
// bookkeeping.
func codexRecord(line []byte) ([]Event, Session) {
	m, ok := decode(line)
	if !ok {
		return notJSON(line), Session{}
	}
	ts := str(m, "timestamp")
	typ := str(m, "type")
	p := sub(m, "payload")
	pt := str(p, "type")
	var meta Session
	switch typ {
	case "session_meta":
		meta = Session{SessionID: str(p, "id"), CWD: str(p, "cwd"), Version: str(p, "cli_version")}
		if meta.SessionID == "" {
			meta.SessionID = str(p, "session_id")
		}
		return []Event{ev(SessionMeta, ts, fmt.Sprintf("codex %s in %s", meta.Version, meta.CWD))}, meta
	case "turn_context":
		meta = Session{CWD: str(p, "cwd"), Model: str(p, "model")}
		return []Event{bookkeeping(ts, "turn_context")}, meta
	case "world_state", "token_usage_record", "retained_context":
		return []Event{bookkeeping(ts, typ)}, meta
	case "compacted":
		return []Event{ev(Compaction, ts, "compacted")}, meta
	case "event_msg":
		return codexEvent(ts, p, pt), meta
	case "response_item":
		return codexItem(ts, p, pt), meta
	}
	return []Event{unknownRecord(ts, typ)}, meta
}

func codexEvent(ts string, p jobj, pt string) []Event {
	switch pt {
	case "item_completed":
		item := sub(p, "item")
		body := texts(item["content"])
		switch str(item, "type") {
		case "UserMessage":
			return []Event{ev(UserMessage, ts, body, bytesField(body), Field{"attachments", int64(0)})}
		case "AgentMessage":
			return []Event{ev(AssistantText, ts, body, bytesField(body))}
		case "Reasoning":
			body = texts(item["summary_text"]) + texts(item["content"])
			return []Event{ev(Thinking, ts, body, bytesField(body))}
		}
		return []Event{bookkeeping(ts, "item_completed "+str(item, "type"))}
	case "user_message":
		body := str(p, "message")
		return []Event{ev(UserMessage, ts, body, bytesField(body), Field{"attachments", int64(len(list(p, "images")))})}
	case "agent_message":
		body := str(p, "message")
		return []Event{ev(AssistantText, ts, body, bytesField(body))}
	case "agent_reasoning":
		body := str(p, "text")
		return []Event{ev(Thinking, ts, body, bytesField(body))}
	case "task_started":
		return []Event{ev(TurnBoundary, ts, "start task_started")}
	case "task_complete":
		return []Event{ev(TurnBoundary, ts, "end task_complete", Field{"duration_ms", numOrNil(p, "duration_ms")})}
	case "turn_aborted":
		return []Event{ev(TurnBoundary, ts, "aborted "+str(p, "reason"), Field{"duration_ms", numOrNil(p, "duration_ms")})}
	case "token_count":
		in, _ := num(p, "info", "last_token_usage", "input_tokens")
		out, _ := num(p, "info", "last_token_usage", "output_tokens")
		total, _ := num(p, "info", "total_token_usage", "total_tokens")
		return []Event{ev(Usage, ts, fmt.Sprintf("%d in, %d out (%d total)", in, out, total),
			Field{"input_tokens", in}, Field{"output_tokens", out})}
	case "exec_approval_request", "apply_patch_approval_request", "request_permissions":
		return []Event{ev(PermissionRequest, ts, pt+" "+compact(p["command"]), Field{"call_id", str(p, "call_id")})}
	case "context_compacted":
		return []Event{ev(Compaction, ts, "context_compacted")}
	case "thread_settings_applied", "exec_command_begin", "exec_command_end", "patch_apply_begin",
		"patch_apply_end", "mcp_tool_call_begin", "mcp_tool_call_end", "item_started", "turn_diff",
		"agent_reasoning_section_break", "web_search_begin", "web_search_end", "plan_update":
		return []Event{bookkeeping(ts, pt)}
	}
	return []Event{unknownRecord(ts, "event_msg "+pt)}
}

func codexItem(ts string, p jobj, pt string) []Event {
	switch pt {
	case "message", "reasoning":
		return []Event{bookkeeping(ts, "response_item "+pt)}
	case "function_call", "custom_tool_call", "local_shell_call", "web_search_call", "tool_search_call":
		name := str(p, "name")
		input := p["arguments"]
		if s, ok := input.(string); ok {
			if o, ok := decode([]byte(s)); ok {
				input = o
			}
		}
		if input == nil {
			input = p["input"]
		}
		if name == "" {
			name = pt
		}
		if input == nil {
			input = p["action"]
		}
		return []Event{ev(ToolCall, ts, toolBody(name, input), Field{"tool", name}, Field{"call_id", str(p, "call_id")})}
	case "function_call_output", "custom_tool_call_output", "tool_search_output":
		body := str(p, "output")
		if body == "" {
			body = texts(p["output"])
		}
		return []Event{ev(ToolResult, ts, body, Field{"call_id", str(p, "call_id")}, bytesField(body))}
	}
	return []Event{unknownRecord(ts, "response_item "+pt)}
}
