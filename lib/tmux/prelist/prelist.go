package prelist

import (
	"os"

	"github.com/tmaproject/tma/lib/tmux/listcall"
)

func init() { listcall.Pending = listcall.Prestart(os.Args[1:], os.Getenv) }
