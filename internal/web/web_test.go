package web

import (
	"io/fs"
	"regexp"
	"strings"
	"testing"
)

// The page's own files: every script and style it loads is one of the
// files Build writes, and nothing names a network host.
func TestStaticFiles(t *testing.T) {
	idx, err := fs.ReadFile(Static(), "index.html")
	if err != nil {
		t.Fatal(err)
	}
	refs := regexp.MustCompile(`(?:src|href)="([^"]+)"`).FindAllStringSubmatch(string(idx), -1)
	if len(refs) < 4 {
		t.Fatalf("index.html loads %d files", len(refs))
	}
	for _, r := range refs {
		found := false
		for _, f := range Files {
			found = found || r[1] == f
		}
		if !found {
			t.Errorf("index.html loads %q, which Build does not write", r[1])
		}
	}
	err = fs.WalkDir(Static(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(Static(), p)
		if err != nil {
			return err
		}
		for _, bad := range []string{"http://", "https://", "//cdn", "@import"} {
			if strings.Contains(string(b), bad) {
				t.Errorf("%s names the network (%q)", p, bad)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
