package rtq

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Mutant writes, under dir, a GOROOT whose src/runtime/proc.go is goroot's
// with the regular expression re replaced by repl inside function fn, and
// whose VERSION names the release and the mutant. It fails if re does not
// match in fn, so a mutation can never silently be a no-op. The runtime's
// source is copied at run time, never into this repository.
func Mutant(goroot, dir, name, fn, re, repl string) (string, error) {
	src, err := os.ReadFile(filepath.Join(goroot, "src", "runtime", "proc.go"))
	if err != nil {
		return "", err
	}
	s := string(src)
	start := strings.Index(s, "\nfunc "+fn+"(")
	if start < 0 {
		return "", fmt.Errorf("mutant %s: no func %s in proc.go", name, fn)
	}
	end := start + strings.Index(s[start:], "\n}\n")
	body := s[start:end]
	rx, err := regexp.Compile(re)
	if err != nil {
		return "", fmt.Errorf("mutant %s: %v", name, err)
	}
	if !rx.MatchString(body) {
		return "", fmt.Errorf("mutant %s: %q not found in %s", name, re, fn)
	}
	s = s[:start] + rx.ReplaceAllLiteralString(body, repl) + s[end:]
	root := filepath.Join(dir, name)
	rt := filepath.Join(root, "src", "runtime")
	if err := os.MkdirAll(rt, 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(rt, "proc.go"), []byte(s), 0o644); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(root, "VERSION"), []byte(ReleaseOf(goroot)+"-"+name+"\n"), 0o644); err != nil {
		return "", err
	}
	return root, nil
}

// GrabHalfDown is a mutant the differential rejects at once: runqgrab takes
// half of the victim's Gs rounded down, so a one-G ring is never stolen.
var GrabHalfDown = struct{ Name, Fn, Re, Repl string }{"grab-half-down", "runqgrab", `n = n - n/2`, "n = n / 2"}
