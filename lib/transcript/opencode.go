//go:build !noopencode

package transcript

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"net/url"
	"os"
	"syscall"
	"time"

	_ "modernc.org/sqlite" // pure Go: CGO_ENABLED=0 builds keep the store
)

// OpenCode keeps every session in one SQLite database,
// $XDG_DATA_HOME/opencode/opencode.db (WAL mode). A session's transcript
// is its rows in message (one per turn side, data a JSON object with the
// role) and part (the pieces of a message: text, reasoning, tool, step
// markers, patches, files), both keyed by the ses_* id. A tool's call and
// its result are one part that OpenCode updates in place, so one part may
// yield two events. The event table is OpenCode's change log and is not
// read.
//
// The connection is read-only (mode=ro, query_only): nothing is written,
// and a read-only connection never checkpoints the WAL. It is not opened
// immutable: the agent is writing the database while it is read, and
// immutable would tell SQLite to ignore the WAL and the locks.

// OpenCodeBuilt says this build reads OpenCode's store (a build with the
// noopencode tag leaves the SQLite driver out and refuses those panes).
const OpenCodeBuilt = true

// openDB opens the database read-only.
func openDB(path string) (*sql.DB, *Refusal) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, ioRefusal(path, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, refuse(CodeIOError, "%s is not a regular file", path)
	}
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() + "?mode=ro&_pragma=query_only(1)&_pragma=busy_timeout(2000)"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, refuse(CodeIOError, "%s: %v", path, err)
	}
	db.SetMaxOpenConns(1)
	return db, nil
}

func dbIdentity(path, session string) uint32 {
	h := fnv.New32a()
	if fi, err := os.Stat(path); err == nil {
		if st, ok := fi.Sys().(*syscall.Stat_t); ok {
			fmt.Fprintf(h, "%d:%d:", st.Dev, st.Ino)
		}
	}
	h.Write([]byte(session))
	return h.Sum32()
}

type ocMessage struct {
	ID      string
	Created int64
	Data    jobj
	Parts   []ocPart
}

type ocPart struct {
	Created int64
	Data    jobj
}

// opencodePage serves one page or one event of a session.
func opencodePage(path, session string, req Request) (*Page, *Refusal) {
	db, ref := openDB(path)
	if ref != nil {
		return nil, ref
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	p := &Page{Path: path, Session: Session{SessionID: session}}
	var model sql.NullString
	err := db.QueryRowContext(ctx, "SELECT directory, version, model FROM session WHERE id = ?", session).
		Scan(&p.Session.CWD, &p.Session.Version, &model)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, refuse(CodeNoTranscript, "session %s is not in %s", session, path)
	}
	if err != nil {
		return nil, refuse(CodeIOError, "%s: %v", path, err)
	}
	if m, ok := decode([]byte(model.String)); ok {
		p.Session.Model = str(m, "id")
	}
	ident := dbIdentity(path, session)
	r := &ocReader{db: db, ctx: ctx, session: session}
	defer func() { p.ReadBytes = r.read }()

	var at *dbCursor
	for _, s := range []string{req.Event, req.Before} {
		if s == "" {
			continue
		}
		c, err := parseDBCursor(s)
		if err != nil {
			return nil, refuse(CodeCursorInvalid, "%v", err)
		}
		if c.DB != ident {
			return nil, refuse(CodeCursorInvalid, "the cursor belongs to another database or session; re-request without --before")
		}
		at = &c
		break
	}
	if req.Event != "" {
		msg, rerr := r.message(at.Message, at.Created)
		if rerr != nil {
			return nil, rerr
		}
		evs := opencodeEvents(msg)
		if at.Index >= len(evs) {
			return nil, refuse(CodeCursorInvalid, "the cursor names event %d of a message that yields %d", at.Index, len(evs))
		}
		e := evs[at.Index]
		e.Cursor = dbCursor{DB: ident, Created: msg.Created, Message: msg.ID, Index: at.Index}.String()
		e.NoBody = req.Headers
		e.finish()
		if e.Kind == Unknown {
			p.Unknown = 1
		}
		p.Events = []Event{e}
		return p, nil
	}

	last := req.Last
	if last <= 0 {
		last = DefaultLast
	}
	g := &pager{p: p, last: last, headers: req.Headers}
	take := func(msg *ocMessage, evs []Event, below int, more bool) bool {
		for j := below - 1; j >= 0; j-- {
			cur := dbCursor{DB: ident, Created: msg.Created, Message: msg.ID, Index: j}.String()
			if g.add(evs[j], cur, j > 0 || more) {
				return true
			}
		}
		return false
	}
	created, id := int64(1<<62), "\U0010FFFF"
	if at != nil {
		msg, rerr := r.message(at.Message, at.Created)
		if rerr != nil {
			return nil, rerr
		}
		created, id = msg.Created, msg.ID
		if at.Index > 0 {
			evs := opencodeEvents(msg)
			if at.Index > len(evs) {
				return nil, refuse(CodeCursorInvalid, "the cursor names event %d of a message that yields %d", at.Index, len(evs))
			}
			more, rerr := r.anyBefore(created, id)
			if rerr != nil {
				return nil, rerr
			}
			if take(msg, evs, at.Index, more) {
				return p, nil
			}
		}
	}
	const batch = 16
	var lastMsg *ocMessage
	for {
		msgs, err := r.before(created, id, batch)
		if errors.Is(err, errBudget) {
			p.BudgetTruncated = true
			switch {
			case len(p.Events) > 0:
				p.Older = p.Events[len(p.Events)-1].Cursor
			case lastMsg != nil:
				p.Older = dbCursor{DB: ident, Created: lastMsg.Created, Message: lastMsg.ID}.String()
			default:
				return nil, refuse(CodeRecordTooLarge, "a message of session %s is larger than the %d-byte read budget", session, MaxRead)
			}
			return p, nil
		}
		if err != nil {
			return nil, refuse(CodeIOError, "%s: %v", path, err)
		}
		for i, msg := range msgs {
			lastMsg = msg
			evs := opencodeEvents(msg)
			more := i < len(msgs)-1 || len(msgs) == batch
			if take(msg, evs, len(evs), more) {
				return p, nil
			}
			created, id = msg.Created, msg.ID
		}
		if len(msgs) < batch {
			return p, nil
		}
	}
}

type ocReader struct {
	db      *sql.DB
	ctx     context.Context
	session string
	read    int64
}

func (r *ocReader) spend(n int) error {
	if r.read+int64(n) > MaxRead {
		return errBudget
	}
	r.read += int64(n)
	return nil
}

// message reads one message and its parts; a message gone or moved since
// the cursor was minted refuses the cursor.
func (r *ocReader) message(id string, created int64) (*ocMessage, *Refusal) {
	msgs, err := r.query("SELECT id, time_created, data FROM message WHERE session_id = ? AND id = ?", r.session, id)
	if err != nil && !errors.Is(err, errBudget) {
		return nil, refuse(CodeIOError, "%v", err)
	}
	if errors.Is(err, errBudget) {
		return nil, refuse(CodeRecordTooLarge, "message %s is larger than the %d-byte read budget", id, MaxRead)
	}
	if len(msgs) == 0 || msgs[0].Created != created {
		return nil, refuse(CodeCursorInvalid, "the message the cursor names is no longer in the session; re-request without --before")
	}
	return msgs[0], nil
}

func (r *ocReader) anyBefore(created int64, id string) (bool, *Refusal) {
	var n int
	err := r.db.QueryRowContext(r.ctx, "SELECT count(*) FROM (SELECT 1 FROM message WHERE session_id = ? AND (time_created, id) < (?, ?) LIMIT 1)",
		r.session, created, id).Scan(&n)
	if err != nil {
		return false, refuse(CodeIOError, "%v", err)
	}
	return n > 0, nil
}

// before reads up to n messages older than (created, id), newest first.
func (r *ocReader) before(created int64, id string, n int) ([]*ocMessage, error) {
	// A range on OpenCode's (session_id, time_created, id) index: a deep
	// page costs what the first one does.
	return r.query("SELECT id, time_created, data FROM message WHERE session_id = ? AND (time_created, id) < (?, ?) ORDER BY time_created DESC, id DESC LIMIT ?",
		r.session, created, id, n)
}

func (r *ocReader) query(q string, args ...any) ([]*ocMessage, error) {
	rows, err := r.db.QueryContext(r.ctx, q, args...)
	if err != nil {
		return nil, err
	}
	var msgs []*ocMessage
	for rows.Next() {
		var m ocMessage
		var data string
		if err := rows.Scan(&m.ID, &m.Created, &data); err != nil {
			rows.Close()
			return nil, err
		}
		if err := r.spend(len(data)); err != nil {
			rows.Close()
			return msgs, err
		}
		m.Data, _ = decode([]byte(data))
		msgs = append(msgs, &m)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for _, m := range msgs {
		if err := r.parts(m); err != nil {
			return nil, err
		}
	}
	return msgs, nil
}

func (r *ocReader) parts(m *ocMessage) error {
	rows, err := r.db.QueryContext(r.ctx, "SELECT time_created, data FROM part WHERE message_id = ? ORDER BY time_created, id", m.ID)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var pt ocPart
		var data string
		if err := rows.Scan(&pt.Created, &data); err != nil {
			return err
		}
		if err := r.spend(len(data)); err != nil {
			return err
		}
		pt.Data, _ = decode([]byte(data))
		m.Parts = append(m.Parts, pt)
	}
	return rows.Err()
}

func msTS(ms int64) string {
	if ms <= 0 {
		return ""
	}
	return time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000Z")
}

// opencodeEvents turns a message and its parts into events, oldest first.
func opencodeEvents(m *ocMessage) []Event {
	role := str(m.Data, "role")
	mts := msTS(m.Created)
	var out []Event
	for _, pt := range m.Parts {
		d := pt.Data
		ts := msTS(pt.Created)
		switch typ := str(d, "type"); typ {
		case "text":
			t := str(d, "text")
			if syn, _ := d["synthetic"].(bool); syn {
				out = append(out, bookkeeping(ts, "synthetic text"))
				continue
			}
			if role == "user" {
				out = append(out, ev(UserMessage, ts, t, bytesField(t), Field{"attachments", int64(countFiles(m))}))
			} else {
				out = append(out, ev(AssistantText, ts, t, bytesField(t)))
			}
		case "reasoning":
			t := str(d, "text")
			out = append(out, ev(Thinking, ts, t, bytesField(t)))
		case "tool":
			name, call, status := str(d, "tool"), str(d, "callID"), str(d, "state", "status")
			out = append(out, ev(ToolCall, ts, toolBody(name, dig(d, "state", "input")), Field{"tool", name},
				Field{"call_id", call}, Field{"status", status}))
			switch status {
			case "completed":
				body := str(d, "state", "output")
				out = append(out, ev(ToolResult, ts, body, Field{"tool", name}, Field{"call_id", call},
					Field{"is_error", false}, bytesField(body)))
			case "error":
				body := str(d, "state", "error")
				out = append(out, ev(ToolResult, ts, body, Field{"tool", name}, Field{"call_id", call},
					Field{"is_error", true}, bytesField(body)))
			}
		case "step-start", "snapshot", "retry":
			out = append(out, bookkeeping(ts, typ))
		case "step-finish":
			in, _ := num(d, "tokens", "input")
			outT, _ := num(d, "tokens", "output")
			out = append(out, ev(Usage, ts, fmt.Sprintf("%d in, %d out (%s)", in, outT, str(d, "reason")),
				Field{"input_tokens", in}, Field{"output_tokens", outT}))
		case "patch":
			out = append(out, bookkeeping(ts, fmt.Sprintf("patch (%d files)", len(list(d, "files")))))
		case "file":
			out = append(out, ev(Attachment, ts, fmt.Sprintf("%s %s", str(d, "mime"), str(d, "filename")), Field{"type", "file"}))
		case "agent", "subtask":
			out = append(out, ev(SubagentRef, ts, typ+" "+str(d, "name")+str(d, "agent"), Field{"tool", typ}))
		case "compaction":
			out = append(out, ev(Compaction, ts, "compaction"))
		default:
			out = append(out, unknownRecord(ts, "part "+typ))
		}
	}
	if role == "assistant" {
		if done, ok := num(m.Data, "time", "completed"); ok {
			mts = msTS(done)
		}
		if e := dig(m.Data, "error"); e != nil {
			out = append(out, ev(TurnBoundary, mts, "error "+str(sub(m.Data, "error"), "name")+" "+compactData(e)))
		} else if f := str(m.Data, "finish"); f != "" && f != "tool-calls" {
			out = append(out, ev(TurnBoundary, mts, "end "+f))
		}
	}
	if len(out) == 0 && role != "user" && role != "assistant" {
		out = append(out, unknownRecord(mts, "message "+role))
	}
	return out
}

func countFiles(m *ocMessage) int {
	n := 0
	for _, pt := range m.Parts {
		if str(pt.Data, "type") == "file" {
			n++
		}
	}
	return n
}

func compactData(v any) string {
	if o, ok := v.(jobj); ok {
		if d, ok := o["data"]; ok {
			b, _ := json.Marshal(d)
			return string(b)
		}
	}
	return ""
}
