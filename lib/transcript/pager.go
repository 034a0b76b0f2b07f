package transcript

// pager fills one page newest first, for every store: the header budget,
// the unknown count, and the cursor of the page behind.
type pager struct {
	p       *Page
	last    int
	hdr     int
	headers bool
}

// add takes the next older event under its cursor; more says whether
// anything older than it remains. It reports a full page.
func (g *pager) add(e Event, cursor string, more bool) bool {
	e.Cursor = cursor
	e.NoBody = g.headers
	e.finish()
	hs := e.headerSize()
	if len(g.p.Events) > 0 && g.hdr+hs > MaxHeaders {
		g.p.BudgetTruncated = true
		g.p.Older = g.p.Events[len(g.p.Events)-1].Cursor
		return true
	}
	g.hdr += hs
	g.p.Events = append(g.p.Events, e)
	if e.Kind == Unknown {
		g.p.Unknown++
	}
	if len(g.p.Events) == g.last {
		if more {
			g.p.Older = e.Cursor
		}
		return true
	}
	return false
}
