package explore

import "charm.land/bubbles/v2/key"

// exploreKeys are the explorer's keys, shown by the help bar.
type exploreKeys struct {
	Down, Up, PageDown, PageUp, Top, Bottom, Next, Prev, Line, Search,
	Session, Filter, Unfilter, Pane, Tab, Toggle, Write, Earlier, Later, Help, Quit key.Binding
}

func newExploreKeys() exploreKeys {
	b := func(keys []string, k, help string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(k, help))
	}
	return exploreKeys{
		Down:     b([]string{"j", "down"}, "j/k", "move"),
		Up:       b([]string{"k", "up"}, "k", "up"),
		PageDown: b([]string{"pgdown", "ctrl+f", "space"}, "pgdn", "page down"),
		PageUp:   b([]string{"pgup", "ctrl+b"}, "pgup", "page up"),
		Top:      b([]string{"g", "home"}, "g/G", "first/last"),
		Bottom:   b([]string{"G", "end"}, "G", "last"),
		Next:     b([]string{"n"}, "n/N", "next/prev problem"),
		Prev:     b([]string{"N"}, "N", "previous problem"),
		Line:     b([]string{":"}, ":", "go to line"),
		Search:   b([]string{"/"}, "/", "search"),
		Session:  b([]string{"s"}, "s", "choose session"),
		Filter:   b([]string{"f"}, "f/F", "filter/clear"),
		Unfilter: b([]string{"F"}, "F", "clear filter"),
		Pane:     b([]string{"tab"}, "tab", "pane"),
		Tab:      b([]string{"1", "2", "3", "4", "5", "left", "right", "h", "l"}, "1-5/h/l", "tabs"),
		Toggle:   b([]string{"x"}, "x", "what-if toggle"),
		Write:    b([]string{"w"}, "w", "write kept lines"),
		Earlier:  b([]string{"["}, "[/]", "timeline"),
		Later:    b([]string{"]"}, "]", "timeline"),
		Help:     b([]string{"?"}, "?", "all keys"),
		Quit:     b([]string{"q", "ctrl+c"}, "q", "quit"),
	}
}
