package prebatch

import (
	"os"

	"github.com/tmaproject/tma/lib/daemon/daemonpath"
	"github.com/tmaproject/tma/lib/tmux/listcall"
)

func init() {
	listcall.PendingBatch = listcall.PrestartBatch(os.Args[1:], os.Getenv, func(name, path string) string {
		return daemonpath.ForEnv(daemonpath.ServerPath(name, path, os.Getenv), os.Getenv).Socket
	})
}
