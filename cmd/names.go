package cmd

import (
	"errors"

	"github.com/agentskit/snapctl/cmd/internal/render"
	"github.com/agentskit/snapctl/replay"
)

// unknownName is the error for a flag value that names nothing in the
// capture (render.UnknownName).
func unknownName(flag, value, kind string, names []string) error {
	return &usageError{errors.New(render.UnknownName(flag, value, kind, names))}
}

// checkSelectors fails when a capture flag selected nothing of the
// capture: --url, the window (--lines, --since, --until), then --session,
// in the order the reader and the cursor apply them; with redact, the
// URLs of a --url error as --redact shows them.
func (c *captureFlags) checkSelectors(in replay.Stats, counts replay.Counts, sessions []string, redact bool) error {
	if err := c.checkURL(in, redact); err != nil {
		return err
	}
	if err := c.checkWindow(in, counts); err != nil {
		return err
	}
	return c.checkSession(sessions)
}

// checkSession fails when a pinned --session is not the session of any
// event, listing the sessions there are.
func (c *captureFlags) checkSession(ids []string) error {
	if c.Session == "" {
		return nil
	}
	for _, id := range ids {
		if id == c.Session {
			return nil
		}
	}
	return unknownName("--session", c.Session, "session", ids)
}

// checkURL fails when --url kept no HAR entry with turn events.
func (c *captureFlags) checkURL(in replay.Stats, redact bool) error {
	if msg := render.URLMatchesNothing(c.URL, in, redact); msg != "" {
		return &usageError{errors.New(msg)}
	}
	return nil
}
