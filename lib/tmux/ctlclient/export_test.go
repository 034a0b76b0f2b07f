package ctlclient

import "context"

// DialPartial makes only the first writes of Dial's three.
func DialPartial(ctx context.Context, o Options, writes int) error {
	_, err := dial(ctx, o, writes)
	return err
}

// Message types the tests look for.
const (
	MsgIdentifyFlags     = msgIdentifyFlags
	MsgIdentifyLongFlags = msgIdentifyLongFlags
	MsgIdentifyDone      = msgIdentifyDone
	MsgIdentifyStdin     = msgIdentifyStdin
	MsgIdentifyStdout    = msgIdentifyStdout
	MsgCommand           = msgCommand
	MsgExit              = msgExit
	MsgVersion           = msgVersion
)
