package wire

import (
	"time"
	"unicode/utf8"
)

// SafeIdentifierPattern is the protocol's pattern for ids, as people read it.
const SafeIdentifierPattern = "^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$"

// IsSafeIdentifier reports whether s matches SafeIdentifierPattern.
func IsSafeIdentifier(s string) bool {
	return isSafeIdentifier([]byte(s))
}

func isSafeIdentifier(b []byte) bool {
	if len(b) == 0 || len(b) > 128 || !isAlnum(b[0]) {
		return false
	}
	for _, c := range b[1:] {
		if !isAlnum(c) && c != '.' && c != '_' && c != ':' && c != '-' {
			return false
		}
	}
	return true
}

func isAlnum(c byte) bool {
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || isDigit(c)
}

// isJSSpace reports whether JavaScript's String.prototype.trim removes r.
// It differs from unicode.IsSpace: U+FEFF is trimmed, U+0085 is not.
func isJSSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff:
		return true
	}
	return r >= 0x2000 && r <= 0x200a
}

// IsBlank reports whether b is empty after JavaScript's trim: such a
// line is not an event, and such an input is empty.
func IsBlank(b []byte) bool {
	for i := 0; i < len(b); {
		if c := b[i]; c < utf8.RuneSelf {
			if !isJSSpace(rune(c)) {
				return false
			}
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		if n == 1 || !isJSSpace(r) {
			return false
		}
		i += n
	}
	return true
}

func num2(b []byte) (int, bool) {
	if !isDigit(b[0]) || !isDigit(b[1]) {
		return 0, false
	}
	return int(b[0]-'0')*10 + int(b[1]-'0'), true
}

func daysIn(year, month int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// validDate checks YYYY-MM-DD as a real proleptic Gregorian date.
func validDate(b []byte) bool {
	if len(b) != 10 || b[4] != '-' || b[7] != '-' {
		return false
	}
	hi, ok1 := num2(b[0:2])
	lo, ok2 := num2(b[2:4])
	month, ok3 := num2(b[5:7])
	day, ok4 := num2(b[8:10])
	if !ok1 || !ok2 || !ok3 || !ok4 || month < 1 || month > 12 || day < 1 {
		return false
	}
	return day <= daysIn(hi*100+lo, month)
}

// validHHMM checks HH:MM with hours 00–23 and minutes 00–59.
func validHHMM(b []byte) bool {
	if len(b) != 5 || b[2] != ':' {
		return false
	}
	h, ok1 := num2(b[0:2])
	m, ok2 := num2(b[3:5])
	return ok1 && ok2 && h <= 23 && m <= 59
}

// isEmittedAt reports whether b is a valid emittedAt: an ISO-8601
// date-time with a real date, HH:MM, optional :SS and optional fraction
// after the seconds, and a zone Z or ±HH:MM.
func isEmittedAt(b []byte) bool {
	if len(b) < 17 || b[10] != 'T' || !validDate(b[:10]) || !validHHMM(b[11:16]) {
		return false
	}
	i := 16
	if b[i] == ':' {
		if len(b) < i+3 {
			return false
		}
		s, ok := num2(b[i+1 : i+3])
		if !ok || s > 59 {
			return false
		}
		i += 3
		if i < len(b) && b[i] == '.' {
			j := i + 1
			for j < len(b) && isDigit(b[j]) {
				j++
			}
			if j == i+1 {
				return false
			}
			i = j
		}
	}
	zone := b[i:]
	if len(zone) == 1 {
		return zone[0] == 'Z'
	}
	return len(zone) == 6 && (zone[0] == '+' || zone[0] == '-') && validHHMM(zone[1:])
}

// emittedTime is the instant of an emittedAt that isEmittedAt accepted.
// It reads the digits in place: time.Parse would cost as much again as
// decoding a small event.
func emittedTime(b []byte) time.Time {
	d := func(i int) int { v, _ := num2(b[i : i+2]); return v }
	year := d(0)*100 + d(2)
	sec, nsec, i := 0, 0, 16
	if b[i] == ':' {
		sec, i = d(17), 19
		if i < len(b) && b[i] == '.' {
			scale := 100_000_000
			for i++; isDigit(b[i]); i++ {
				nsec += int(b[i]-'0') * scale
				scale /= 10
			}
		}
	}
	t := time.Date(year, time.Month(d(5)), d(8), d(11), d(14), sec, nsec, time.UTC)
	if b[i] != 'Z' {
		off := time.Duration(d(i+1))*time.Hour + time.Duration(d(i+4))*time.Minute
		if b[i] == '+' {
			off = -off
		}
		t = t.Add(off)
	}
	return t
}

// isCreatedAt reports whether b is a message createdAt: exactly
// YYYY-MM-DDTHH:MM:SS.mmmZ naming a real instant, so that it survives
// JavaScript's Date round trip unchanged.
func isCreatedAt(b []byte) bool {
	if len(b) != 24 || b[10] != 'T' || b[19] != '.' || b[23] != 'Z' || b[16] != ':' {
		return false
	}
	if !validDate(b[:10]) || !validHHMM(b[11:16]) {
		return false
	}
	s, ok := num2(b[17:19])
	if !ok || s > 59 {
		return false
	}
	return isDigit(b[20]) && isDigit(b[21]) && isDigit(b[22])
}

// isCode reports whether b matches ^[A-Z][A-Z0-9_]*$.
func isCode(b []byte) bool {
	if len(b) == 0 || b[0] < 'A' || b[0] > 'Z' {
		return false
	}
	for _, c := range b[1:] {
		if !(c >= 'A' && c <= 'Z') && !isDigit(c) && c != '_' {
			return false
		}
	}
	return true
}
