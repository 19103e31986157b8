package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// maxInputSize bounds what is read from one file or from standard input.
const maxInputSize = 32 << 20

// input is one file given to a command, read.
type input struct {
	// name is the path as given (or found in a directory), "-" for
	// standard input.
	name string
	data []byte
	// err says why the input could not be read.
	err error
}

// inputExtensions are the file names read from a directory.
var inputExtensions = []string{".yaml", ".yml", ".json"}

// readInputs reads the files named by args: files, directories (their
// .yaml, .yml and .json files, recursively, in lexical order) and "-" for
// stdin. Problems are reported in the inputs, in the order of args.
func readInputs(args []string, stdin io.Reader) []input {
	var out []input
	readStdin := false
	for _, arg := range args {
		if arg == "-" {
			if readStdin {
				out = append(out, input{name: "-", err: errors.New("standard input is given more than once")})
				continue
			}
			readStdin = true
			data, err := readBounded(stdin)
			out = append(out, input{name: "-", data: data, err: err})
			continue
		}
		st, err := os.Stat(arg)
		if err != nil {
			out = append(out, input{name: arg, err: err})
			continue
		}
		if !st.IsDir() {
			out = append(out, readFile(arg))
			continue
		}
		var found []input
		err = filepath.WalkDir(arg, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				found = append(found, input{name: path, err: err})
				return nil
			}
			if d.Type().IsRegular() && hasInputExtension(path) {
				found = append(found, readFile(path))
			}
			return nil
		})
		if err == nil && len(found) == 0 {
			err = errors.New("no .yaml, .yml or .json file in the directory")
		}
		if err != nil {
			found = append(found, input{name: arg, err: err})
		}
		out = append(out, found...)
	}
	return out
}

func hasInputExtension(path string) bool {
	ext := strings.ToLower(filepath.Ext(path))
	for _, e := range inputExtensions {
		if ext == e {
			return true
		}
	}
	return false
}

func readFile(path string) input {
	f, err := os.Open(path)
	if err != nil {
		return input{name: path, err: err}
	}
	defer f.Close()
	data, err := readBounded(f)
	return input{name: path, data: data, err: err}
}

// readBounded reads r up to maxInputSize bytes.
func readBounded(r io.Reader) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxInputSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxInputSize {
		return nil, fmt.Errorf("larger than %d MiB", maxInputSize>>20)
	}
	return data, nil
}
