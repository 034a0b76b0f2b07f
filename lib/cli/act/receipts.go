package actcmd

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/tmaproject/tma/lib/act"
	"github.com/tmaproject/tma/lib/act/ledger"
	"github.com/tmaproject/tma/lib/cli/common"
)

type receiptsCmd struct {
	Slot string `name:"slot" placeholder:"ID" help:"only this slot's receipt (none: the dispatch never reached this host, or is still in flight)."`
	JSON bool   `name:"json" help:"print {\"schema\":1,\"receipts\":[…]} instead of tab-separated lines."`
}

// receipts is `tma receipts`: the ledger's receipts, oldest first. It reads
// one local file: no tmux, no lock (a rename replaces the file whole), no
// keystroke. The runtime directory is $XDG_RUNTIME_DIR/tma, else
// /tmp/tma-<uid>.
func receipts(e *common.Env, c *receiptsCmd) int {
	path := filepath.Join(ledger.RuntimeDir(e.Getenv), ledger.FileName)
	es, err := ledger.Read(path)
	if err != nil {
		var torn *ledger.TornError
		if errors.As(err, &torn) {
			e.Errorf("%v\nhint: remove the file to start a new ledger (its receipts are lost)", err)
		} else {
			e.Errorf("receipt ledger: %v", err)
		}
		return common.ExitFail
	}
	rs := ledger.Receipts(es, c.Slot)
	if c.JSON {
		out, err := act.Marshal(ledger.Doc{Schema: 1, Receipts: rs})
		if err != nil {
			e.Errorf("%v", err)
			return common.ExitFail
		}
		fmt.Fprintln(e.Stdout, string(out))
		return common.ExitOK
	}
	for _, r := range rs {
		fmt.Fprintln(e.Stdout, r.Line())
	}
	return common.ExitOK
}
