package transcript

import (
	"fmt"
	"strconv"
	"strings"
)

// A file cursor names one event of a JSONL store:
//
//	t1.<inode>.<head>.<size>.<offset>.<index>
//
// inode, head (a CRC-32 of the file's first min(size, 4 KiB) bytes), size
// (the file's length when the cursor was minted) and offset (where the
// event's record starts) are hex; index is the event's place among the
// events its record yields, so a page may end inside a record. A file
// that has since shrunk, or whose inode or head differs, is not the file
// the cursor was minted against: a compaction that rewrote it, a
// truncation, a replacement. An append keeps every cursor valid.
type fileCursor struct {
	Inode  uint64
	Head   uint32
	Size   int64
	Offset int64
	Index  int
}

func (c fileCursor) String() string {
	return fmt.Sprintf("t1.%x.%08x.%x.%x.%d", c.Inode, c.Head, c.Size, c.Offset, c.Index)
}

func parseFileCursor(s string) (fileCursor, error) {
	var c fileCursor
	p := strings.Split(s, ".")
	if len(p) != 6 || p[0] != "t1" {
		return c, fmt.Errorf("%q is not a transcript file cursor", s)
	}
	var err error
	var h uint64
	if c.Inode, err = strconv.ParseUint(p[1], 16, 64); err != nil {
		return c, fmt.Errorf("cursor %q: bad inode", s)
	}
	if h, err = strconv.ParseUint(p[2], 16, 32); err != nil {
		return c, fmt.Errorf("cursor %q: bad head", s)
	}
	c.Head = uint32(h)
	if c.Size, err = strconv.ParseInt(p[3], 16, 64); err != nil || c.Size < 0 {
		return c, fmt.Errorf("cursor %q: bad size", s)
	}
	if c.Offset, err = strconv.ParseInt(p[4], 16, 64); err != nil || c.Offset < 0 || c.Offset > c.Size {
		return c, fmt.Errorf("cursor %q: bad offset", s)
	}
	if c.Index, err = strconv.Atoi(p[5]); err != nil || c.Index < 0 {
		return c, fmt.Errorf("cursor %q: bad index", s)
	}
	return c, nil
}

// A database cursor names one event of OpenCode's store:
//
//	o1.<db>.<created>.<message>.<index>
//
// db is a hash of the database file's inode and the session id (a cursor
// from another database or session is refused), created the message's
// time_created in hex milliseconds, message its id, index the event's
// place among the events the message's parts yield. A database shrinks on
// checkpoint without losing a row, so no byte offset would survive one.
type dbCursor struct {
	DB      uint32
	Created int64
	Message string
	Index   int
}

func (c dbCursor) String() string {
	return fmt.Sprintf("o1.%08x.%x.%s.%d", c.DB, c.Created, c.Message, c.Index)
}

func parseDBCursor(s string) (dbCursor, error) {
	var c dbCursor
	p := strings.Split(s, ".")
	if len(p) != 5 || p[0] != "o1" {
		return c, fmt.Errorf("%q is not an OpenCode cursor", s)
	}
	db, err := strconv.ParseUint(p[1], 16, 32)
	if err != nil {
		return c, fmt.Errorf("cursor %q: bad database", s)
	}
	c.DB = uint32(db)
	if c.Created, err = strconv.ParseInt(p[2], 16, 64); err != nil {
		return c, fmt.Errorf("cursor %q: bad time", s)
	}
	c.Message = p[3]
	if c.Message == "" || strings.ContainsAny(c.Message, "'\"\\ ") {
		return c, fmt.Errorf("cursor %q: bad message id", s)
	}
	if c.Index, err = strconv.Atoi(p[4]); err != nil || c.Index < 0 {
		return c, fmt.Errorf("cursor %q: bad index", s)
	}
	return c, nil
}
