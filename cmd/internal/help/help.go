// Package help holds snapctl's help topics: the reference that is not one
// command's (capture formats, the JSON contracts, reasons, findings, exit
// status, hostile input, the environment, …), as plain text fitting 80
// columns. `snapctl help TOPIC` prints a topic and `snapctl man` writes a
// page for each, from the same text.
package help

import (
	"embed"
	"path"
	"slices"
	"strings"
	"sync"
)

// The text of each topic is one file, topics/NAME.txt: its first line
// says in a few words what the topic covers, then a blank line, then the
// text.
//
//go:embed topics/*.txt
var files embed.FS

// Topic is one help topic.
type Topic struct {
	Name  string // the word after `snapctl help`
	Short string // what it covers, in a few words
	Text  string // the text, ending in a newline
}

// Topics returns every topic, in the order of their names.
func Topics() []Topic { return slices.Clone(topics()) }

// topics reads the topics once a process: every command tree adds a
// command per topic, and tests and fuzz targets build a tree for each
// command they run (reading the files was a third of each run's CPU).
var topics = sync.OnceValue(readTopics)

func readTopics() []Topic {
	entries, err := files.ReadDir("topics")
	if err != nil {
		panic(err) // the embedded directory is there: a build without it fails
	}
	var topics []Topic
	for _, e := range entries {
		data, err := files.ReadFile(path.Join("topics", e.Name()))
		if err != nil {
			panic(err)
		}
		short, text, _ := strings.Cut(string(data), "\n")
		topics = append(topics, Topic{
			Name:  strings.TrimSuffix(e.Name(), ".txt"),
			Short: strings.TrimSpace(short),
			Text:  strings.TrimLeft(text, "\n"),
		})
	}
	return topics
}

// The long help of the commands whose reference runs past a screen is
// one file each, commands/NAME.txt, so that the command's file holds its
// flags and code and the text can be read and edited as text.
//
//go:embed commands/*.txt
var commandFiles embed.FS

// Command is the long help of the command name, without its final
// newline; it panics for a command with no file, which every build's
// tests would show at once.
func Command(name string) string {
	text, ok := commands()[name]
	if !ok {
		panic("help: no file commands/" + name + ".txt")
	}
	return text
}

// commands reads the long helps once a process, as topics does: reading
// the embedded files copies them, and every command tree reads all ten.
var commands = sync.OnceValue(func() map[string]string {
	entries, err := commandFiles.ReadDir("commands")
	if err != nil {
		panic(err) // the embedded directory is there: a build without it fails
	}
	texts := make(map[string]string, len(entries))
	for _, e := range entries {
		data, err := commandFiles.ReadFile(path.Join("commands", e.Name()))
		if err != nil {
			panic(err)
		}
		texts[strings.TrimSuffix(e.Name(), ".txt")] = strings.TrimSuffix(string(data), "\n")
	}
	return texts
})
