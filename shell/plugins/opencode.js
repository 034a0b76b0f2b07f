// tma: opencode hook forwarder, written by `tma install-hooks opencode`.
// Do not edit: re-run `tma install-hooks opencode` to update it and
// `tma install-hooks opencode --uninstall` to remove it.
//
// It forwards OpenCode's bus events to `tma-hook opencode <event>` with a JSON
// payload on stdin: spawned directly (no shell), never awaited, and only
// inside tmux, so it can neither block nor break OpenCode.
import { spawn } from "node:child_process";

const TMA_HOOK = __TMA_HOOK__;

// tma event -> the OpenCode sources that raise it ("load" is this plugin
// being loaded; "session.status:busy" is a session.status event whose status
// type is busy).
const EVENTS = __EVENTS__;

function eventFor(source) {
  for (const name of Object.keys(EVENTS)) {
    if (EVENTS[name].includes(source)) return name;
  }
  return null;
}

function forward(name, payload) {
  if (!process.env.TMUX_PANE) return;
  try {
    const child = spawn(TMA_HOOK, ["opencode", name], {
      stdio: ["pipe", "ignore", "ignore"],
      detached: true,
    });
    child.on("error", () => {});
    child.stdin.on("error", () => {});
    child.stdin.end(JSON.stringify(payload));
    child.unref();
  } catch (_) {
    // A missing wrapper must never disturb OpenCode.
  }
}

// The server this plugin runs in, for tma act's API lane: only when it
// listens on a port. OpenCode's serverUrl names a placeholder when nothing
// listens (the TUI talks to its worker in-process unless started with
// --port or --hostname), so the placeholder is never taken on its own. The
// command line decides where it can: `serve`, `web` and a TUI's flags. In
// the TUI the plugin runs inside OpenCode's worker, whose argv is the
// worker's own (bun …/worker.js) and names no flag, and there serverUrl
// is the address the TUI's server listens on, or the placeholder.
const PLACEHOLDER = "http://localhost:4096/";
let serverUrl = () => "";

function listens(url) {
  const argv = process.argv.slice(1);
  if (argv.some((a) => a === "serve" || a === "web" || a === "--port" || a.startsWith("--port=") || a === "--hostname" || a.startsWith("--hostname="))) {
    return true;
  }
  return url !== "" && url !== PLACEHOLDER;
}

function fire(source, sessionID, extra) {
  const name = eventFor(source);
  if (!name) return;
  // tma_at_ms: the hooks are spawned without waiting and may reach tmux out
  // of order; tma orders the claims by when the event happened.
  const payload = { hook_event_name: name, source: source, tma_at_ms: Date.now() };
  if (sessionID) payload.session_id = sessionID;
  const api = serverUrl();
  if (api) payload.tma_api_endpoint = api;
  forward(name, Object.assign(payload, extra));
}

export const TmaPlugin = async (input) => {
  serverUrl = () => {
    try {
      // Read at each event: the server may not be listening yet at load.
      const url = input && input.serverUrl ? String(input.serverUrl.href || input.serverUrl) : "";
      return listens(url) ? url : "";
    } catch (_) {
      return "";
    }
  };
  fire("load", "", {});
  return {
    event: async ({ event }) => {
      if (!event || typeof event.type !== "string") return;
      const p = event.properties || {};
      let source = event.type;
      if (source === "session.status") {
        source += ":" + ((p.status && p.status.type) || "");
      }
      if (!eventFor(source)) return;
      fire(source, p.sessionID || (p.info && p.info.id) || "", { properties: p });
    },
    "chat.message": async (input) => {
      fire("chat.message", (input && input.sessionID) || "", {});
    },
    "tool.execute.before": async (input) => {
      fire("tool.execute.before", (input && input.sessionID) || "", {
        tool_name: (input && input.tool) || "",
        tool_use_id: (input && input.callID) || "",
      });
    },
  };
};
