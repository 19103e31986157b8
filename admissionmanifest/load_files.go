package admissionmanifest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// Files is the file system the package reads: the configuration checks stat
// staticManifestsDir, the loaders list the directory and read its files. The
// zero value reads the operating system's files. Set the functions to check
// or load against a fake file system, as authzconfig.ValidateOptions.Stat
// does; their errors appear in the error texts, as the operating system's
// would. FilesOf serves an fs.FS.
type Files struct {
	// Stat returns the information of a file, following symbolic links.
	// Nil means os.Stat.
	Stat func(name string) (fs.FileInfo, error)
	// ReadDir lists a directory sorted by file name. Nil means os.ReadDir.
	ReadDir func(name string) ([]fs.DirEntry, error)
	// ReadFile returns a file's content. Nil means os.ReadFile.
	ReadFile func(name string) ([]byte, error)
}

// FilesOf serves the files of fsys, in which the absolute path /a/b is the
// name a/b (and / is "."), for tests and for tools that validate manifests
// away from the server's disk (fstest.MapFS, embed.FS, an archive).
func FilesOf(fsys fs.FS) Files {
	name := func(p string) string {
		p = strings.TrimPrefix(p, "/")
		p = strings.TrimSuffix(p, "/")
		if p == "" {
			return "."
		}
		return p
	}
	return Files{
		Stat:     func(p string) (fs.FileInfo, error) { return fs.Stat(fsys, name(p)) },
		ReadDir:  func(p string) ([]fs.DirEntry, error) { return fs.ReadDir(fsys, name(p)) },
		ReadFile: func(p string) ([]byte, error) { return fs.ReadFile(fsys, name(p)) },
	}
}

func (f *Files) stat(name string) (fs.FileInfo, error) {
	if f.Stat == nil {
		return os.Stat(name)
	}
	return f.Stat(name)
}

func (f *Files) readDir(name string) ([]fs.DirEntry, error) {
	if f.ReadDir == nil {
		return os.ReadDir(name)
	}
	return f.ReadDir(name)
}

func (f *Files) readFile(name string) ([]byte, error) {
	if f.ReadFile == nil {
		return os.ReadFile(name)
	}
	return f.ReadFile(name)
}

// manifestDocument is one YAML or JSON document of a manifest file.
type manifestDocument struct {
	file string
	data []byte
}

// readManifests reads the documents of a manifests directory as
// kube-apiserver's manifest.LoadFiles does: the files directly in dir (not
// in its subdirectories), in file name order, whose extension is .yaml, .yml
// or .json in any case; empty files are skipped; each file is split into
// YAML documents at "---" lines, each trimmed of white space, empty ones
// dropped (a JSON file is one document). It returns them with the content
// hash of the files read.
func readManifests(dir string, files *Files) ([]manifestDocument, string, error) {
	if dir == "" {
		return nil, "", errors.New("manifest directory path is empty")
	}
	entries, err := files.readDir(dir)
	if err != nil {
		return nil, "", fmt.Errorf("failed to read manifest directory %q: %w", dir, err)
	}
	var docs []manifestDocument
	sum := newContentHash()
	for _, entry := range entries {
		if entry.IsDir() {
			continue
		}
		name := entry.Name()
		switch strings.ToLower(filepath.Ext(name)) {
		case ".yaml", ".yml", ".json":
		default:
			continue
		}
		path := filepath.Join(dir, name)
		data, err := files.readFile(path)
		if err != nil {
			return nil, "", fmt.Errorf("failed to read file %q: %w", path, err)
		}
		if len(data) == 0 {
			continue
		}
		sum.add(data)
		docs, err = splitDocuments(docs, path, data)
		if err != nil {
			return nil, "", fmt.Errorf("failed to split YAML documents in file %q: %w", path, err)
		}
	}
	return docs, sum.String(), nil
}

// splitDocuments appends the non-empty documents of a file to docs, cut
// with apimachinery's YAML reader as kube-apiserver cuts them.
func splitDocuments(docs []manifestDocument, path string, data []byte) ([]manifestDocument, error) {
	if !bytes.HasPrefix(data, []byte("---")) && !bytes.Contains(data, []byte("\n---")) && bytes.IndexByte(data, '\r') < 0 {
		// No line starts with the separator and no line ends with "\r\n"
		// (which the reader turns into "\n"): the reader would return the
		// whole file as one document.
		if doc := bytes.TrimSpace(data); len(doc) > 0 {
			docs = append(docs, manifestDocument{file: path, data: doc})
		}
		return docs, nil
	}
	return splitDocumentsWithReader(docs, path, data)
}

// splitDocumentsWithReader is splitDocuments through apimachinery's reader.
func splitDocumentsWithReader(docs []manifestDocument, path string, data []byte) ([]manifestDocument, error) {
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return docs, err
		}
		if doc = bytes.TrimSpace(doc); len(doc) > 0 {
			docs = append(docs, manifestDocument{file: path, data: doc})
		}
	}
}
