package protocol

import (
	"bufio"
	"encoding/json"
	"io"
)

// Serve is an oracle program's loop: it answers every line of r on w with
// answer, in order, flushing each answer, until r ends. A line that does not
// decode gets an Answer with Error, and serving goes on.
func Serve(r io.Reader, w io.Writer, answer func(Query) Answer) error {
	in := bufio.NewReader(r)
	out := bufio.NewWriter(w)
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	for {
		line, err := in.ReadBytes('\n')
		if len(line) > 0 {
			var q Query
			var a Answer
			if jerr := json.Unmarshal(line, &q); jerr != nil {
				a = Answer{Error: "decoding the query: " + jerr.Error()}
			} else {
				a = answer(q)
			}
			if werr := enc.Encode(a); werr != nil {
				return werr
			}
			if werr := out.Flush(); werr != nil {
				return werr
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}
