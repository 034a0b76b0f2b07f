package setupcmd

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/tmaproject/tma/lib/cli/common"
	"github.com/tmaproject/tma/lib/device"
)

type deviceCmd struct {
	Pair struct {
		Name  string   `arg:"" help:"the device's name on this host (what grant and revoke take)."`
		ID    string   `name:"id" placeholder:"ID" help:"the fingerprint of the key the device connects with (ssh-keygen -lf KEY.pub, the middle field); not with --web."`
		Web   bool     `name:"web" help:"pair a browser with tma serve --http: print a one-time pairing URL (10 minutes, single use) and its QR code."`
		Scope []string `name:"scope" placeholder:"SCOPE" help:"grant exactly these scopes (repeatable; read is always held): read, act:answer, act:steer."`
		Only  bool     `name:"only" help:"grant read alone: a device that watches and never answers."`
	} `cmd:"" help:"pair a device: read, act:answer and act:steer unless --only or --scope say otherwise."`
	Grant struct {
		Name  string `arg:"" help:"the paired device."`
		Scope string `arg:"" help:"the scope to add: read, act:answer, act:steer or act:always."`
	} `cmd:"" help:"widen a paired device's scopes (the only way act:always is ever granted)."`
	Revoke struct {
		Name string `arg:"" help:"the paired device."`
	} `cmd:"" help:"remove a device's record; its open serve connections end at their next request."`
	List struct {
		JSON bool `name:"json" help:"one schema-1 document: {\"schema\":1,\"devices\":[{name,id,scopes,paired_at_ms}]}."`
	} `cmd:"" help:"the paired devices: name, id and scopes, one tab-separated line each."`
}

// devices runs one `tma device` subcommand.
func devices(e *common.Env, g *common.Globals, c *deviceCmd, sub string, now time.Time) int {
	dir := common.ConfigDir(e)
	if dir == "" {
		e.Errorf("no config directory: set HOME, XDG_CONFIG_HOME or TMA_CONFIG_DIR")
		return common.ExitFail
	}
	path := device.Path(dir)
	fail := func(err error) int {
		var ue usageErr
		var ne noDevice
		switch {
		case errors.As(err, &ue):
			e.Errorf("%s", ue.msg)
			return common.ExitUsage
		case errors.As(err, &ne):
			e.Errorf("no device is called %q (tma device list shows the paired ones)", string(ne))
			return common.ExitVanish
		}
		e.Errorf("%v", err)
		return common.ExitFail
	}
	out := func(format string, a ...any) { fmt.Fprintf(e.Stdout, format+"\n", a...) }
	switch sub {
	case "pair":
		p := &c.Pair
		scopes, err := pairScopes(p.Only, p.Scope)
		if err == nil && p.Web {
			return pairWeb(e, g, path, p.Name, scopes, now, fail)
		}
		if err == nil && p.ID == "" {
			err = usageErr{"pair needs --id <fingerprint> (an ssh device) or --web (a browser)"}
		}
		if err == nil {
			err = checkNameID(p.Name, p.ID)
		}
		if err != nil {
			return fail(err)
		}
		err = device.Update(path, func(s *device.Store) error {
			if d := s.ByName(p.Name); d != nil {
				return fmt.Errorf("a device is already called %s (%s); revoke it first, or grant it a scope", p.Name, d.ID)
			}
			if d := s.ByID(p.ID); d != nil {
				return fmt.Errorf("%s is already paired as %s; revoke that one first", p.ID, d.Name)
			}
			s.Devices = append(s.Devices, device.Device{Name: p.Name, ID: p.ID, Scopes: scopes, PairedAtMS: now.UnixMilli()})
			return nil
		})
		if err != nil {
			return fail(err)
		}
		out("paired %s as %s", p.ID, p.Name)
		out("  scopes: %s", strings.Join(scopes, ", "))
	case "grant":
		g := &c.Grant
		if err := device.CheckScope(g.Scope); err != nil {
			return fail(usageErr{err.Error()})
		}
		var held []string
		err := device.Update(path, func(s *device.Store) error {
			d := s.ByName(g.Name)
			if d == nil {
				return noDevice(g.Name)
			}
			if !d.Has(g.Scope) {
				d.Scopes = device.Sorted(append(d.Scopes, g.Scope))
			}
			held = d.Scopes
			return nil
		})
		if err != nil {
			return fail(err)
		}
		out("%s now holds: %s", g.Name, strings.Join(held, ", "))
	case "revoke":
		var gone device.Device
		err := device.Update(path, func(s *device.Store) error {
			d, ok := s.Remove(c.Revoke.Name)
			if !ok {
				return noDevice(c.Revoke.Name)
			}
			gone = d
			return nil
		})
		if err != nil {
			return fail(err)
		}
		out("revoked %s (%s)", gone.Name, gone.ID)
		if gone.IsWeb() {
			out("  its token is refused from its next request, and an open page's event stream ends")
			return common.ExitOK
		}
		out("  remove its `command=\"tma serve --stdio --device %s\"` line from", gone.ID)
		out("  ~/.ssh/authorized_keys too, so the next dial is refused by sshd as well")
	case "list":
		s, err := device.Load(path)
		if err != nil {
			return fail(err)
		}
		if c.List.JSON {
			doc := struct {
				Schema  int             `json:"schema"`
				Devices []device.Device `json:"devices"`
			}{1, s.Devices}
			if doc.Devices == nil {
				doc.Devices = []device.Device{}
			}
			for i := range doc.Devices {
				if doc.Devices[i].Scopes == nil {
					doc.Devices[i].Scopes = []string{}
				}
			}
			b, _ := json.Marshal(doc)
			out("%s", b)
			return common.ExitOK
		}
		for _, d := range s.Devices {
			out("%s\t%s\t%s", d.Name, d.ID, strings.Join(d.Scopes, ","))
		}
	}
	return common.ExitOK
}

type usageErr struct{ msg string }

func (u usageErr) Error() string { return u.msg }

type noDevice string

func (n noDevice) Error() string { return "no device " + string(n) }

func checkNameID(name, id string) error {
	if err := device.CheckName(name); err != nil {
		return usageErr{err.Error()}
	}
	if err := device.CheckID(id); err != nil {
		return usageErr{err.Error()}
	}
	return nil
}

// pairScopes is what a pair grants: --only is read alone, --scope the
// named scopes plus read, neither the default. act:always is refused here
// so that it is only ever added by a grant naming it.
func pairScopes(only bool, named []string) ([]string, error) {
	switch {
	case only && len(named) > 0:
		return nil, usageErr{"--only and --scope are exclusive"}
	case only:
		return slices.Clone(device.OnlyScopes), nil
	case len(named) == 0:
		return slices.Clone(device.DefaultScopes), nil
	}
	for _, s := range named {
		if err := device.CheckScope(s); err != nil {
			return nil, usageErr{err.Error()}
		}
		if s == device.ScopeAlways {
			return nil, usageErr{"act:always is not granted at pairing; pair first, then `tma device grant <name> act:always`"}
		}
	}
	return device.Sorted(append([]string{device.ScopeRead}, named...)), nil
}
