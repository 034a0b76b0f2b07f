package pick

import "github.com/tmaproject/tma/lib/cli/common"

func (s *sess) watch(*watchCmd) int { s.e.Errorf("watch is not built yet"); return common.ExitFail }
func (s *sess) picker(*pickCmd) int {
	s.e.Errorf("the picker is not built yet")
	return common.ExitFail
}
func feed(e *common.Env, sock, verb string) int {
	e.Errorf("not built yet")
	return common.ExitFail
}
