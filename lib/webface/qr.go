package webface

import (
	"strings"

	qrcode "github.com/skip2/go-qrcode"
)

// TerminalQR draws text as a QR code in half-block characters, two module
// rows per line, light modules (and the quiet zone) as ink: the way
// qrencode -t UTF8 draws, which reads on a dark terminal and scans on a
// light one all the same, since a phone's reader takes inverted codes.
func TerminalQR(text string) (string, error) {
	q, err := qrcode.New(text, qrcode.Medium)
	if err != nil {
		return "", err
	}
	bm := q.Bitmap() // true = dark, quiet zone included
	var b strings.Builder
	for y := 0; y < len(bm); y += 2 {
		for x := range bm[y] {
			top := !bm[y][x]
			bottom := y+1 < len(bm) && !bm[y+1][x]
			switch {
			case top && bottom:
				b.WriteString("█")
			case top:
				b.WriteString("▀")
			case bottom:
				b.WriteString("▄")
			default:
				b.WriteString(" ")
			}
		}
		b.WriteByte('\n')
	}
	return b.String(), nil
}
