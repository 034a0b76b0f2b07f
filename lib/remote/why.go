package remote

import (
	"errors"
	"fmt"
	"time"
)

// errEnded is a connection whose stream closed before the answer.
var errEnded = errors.New("the connection ended")

// TimeoutError is a remote that did not answer within its timeout.
type TimeoutError struct{ After time.Duration }

func (e *TimeoutError) Error() string { return fmt.Sprintf("no answer in %s", e.After) }

// RefusedError is an error frame the host's serve sent.
type RefusedError struct{ Code, Message string }

func (e *RefusedError) Error() string { return e.Code + ": " + e.Message }

// Why is the short reason a surface's header row gives for a remote it
// has no rows of: unreachable (no answer, or the connection ended before
// one), refused (the host's serve said no), or failed (anything else, a
// command that would not start or an answer that was not a frame).
func Why(err error) string {
	var te *TimeoutError
	var re *RefusedError
	switch {
	case errors.As(err, &te):
		return fmt.Sprintf("unreachable (timeout %s)", te.After)
	case errors.As(err, &re):
		return fmt.Sprintf("refused (%s)", re.Error())
	case errors.Is(err, errEnded):
		return "unreachable (" + err.Error() + ")"
	}
	return "failed (" + err.Error() + ")"
}
