// tma: pi hook forwarder, written by `tma install-hooks pi`.
// Do not edit: re-run `tma install-hooks pi` to update it and
// `tma install-hooks pi --uninstall` to remove it.
//
// It forwards pi's events to `tma-hook pi <event>` with a JSON payload on
// stdin: spawned directly (no shell), never awaited, and only inside tmux, so
// it can neither block nor break pi. pi's events carry no session id; it is
// read from the session manager.
import { spawn } from "node:child_process";

const TMA_HOOK = __TMA_HOOK__;

// The pi events tma maps.
const EVENTS = __EVENTS__;

function sessionOf(ctx) {
  try {
    return (ctx && ctx.sessionManager && ctx.sessionManager.getSessionId()) || "";
  } catch (_) {
    return "";
  }
}

function forward(name, payload) {
  if (!process.env.TMUX_PANE) return;
  try {
    const child = spawn(TMA_HOOK, ["pi", name], {
      stdio: ["pipe", "ignore", "ignore"],
      detached: true,
    });
    child.on("error", () => {});
    child.stdin.on("error", () => {});
    child.stdin.end(JSON.stringify(payload));
    child.unref();
  } catch (_) {
    // A missing wrapper must never disturb pi.
  }
}

function payloadFor(name, event, ctx) {
  const p = { hook_event_name: name, cwd: process.cwd(), tma_at_ms: Date.now() };
  const session = sessionOf(ctx);
  if (session) p.session_id = session;
  if (event && event.toolName) p.tool_name = event.toolName;
  if (event && event.toolCallId) p.tool_use_id = event.toolCallId;
  if (event && event.reason) p.reason = event.reason;
  if (name === "agent_settled") {
    try {
      const usage = ctx && ctx.getContextUsage && ctx.getContextUsage();
      if (usage) p.context = usage;
    } catch (_) {}
    // The model the turn ran on (ctx.model, pi's Model: its id).
    try {
      const model = ctx && ctx.model;
      if (model && typeof model.id === "string" && model.id) p.model = model.id;
    } catch (_) {}
  }
  return p;
}

export default function (pi) {
  // pi releases before agent_settled end a turn with agent_end only: stand in
  // for agent_settled there, unless the real one arrives (or a new turn
  // starts) first.
  let native = false;
  let pending = null;
  const cancel = () => {
    if (pending) clearTimeout(pending);
    pending = null;
  };
  for (const name of EVENTS) {
    pi.on(name, (event, ctx) => {
      if (name === "agent_settled") native = true;
      cancel();
      forward(name, payloadFor(name, event, ctx));
    });
  }
  if (EVENTS.includes("agent_settled")) {
    pi.on("agent_end", (event, ctx) => {
      if (native) return;
      cancel();
      const payload = payloadFor("agent_settled", event, ctx);
      payload.from = "agent_end";
      pending = setTimeout(() => {
        pending = null;
        if (!native) forward("agent_settled", payload);
      }, 300);
      if (pending && pending.unref) pending.unref();
    });
  }
}
