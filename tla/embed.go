package tla

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/gmpcheck/gmpcheck/tla/tlacheck"
)

// Files are the modules, cfgs, node scripts and the pinned package files
// (with .npmrc, whose settings npm ci needs to accept the lock file)
// that 'gmpcheck tla' and verify's tla stage need, built into the binary so
// that an installed gmpcheck works outside a checkout.
//
//go:embed *.tla *.cfg *.mjs package.json package-lock.json .npmrc
var Files embed.FS

// Unpack writes Files into a directory of their own under cache (the
// caller's cache directory, e.g. os.UserCacheDir()/gmpcheck), named after a
// hash of their contents so that a binary with other modules gets another
// directory, and returns it. A directory already unpacked is reused (its
// node_modules, installed there by npm ci, too). It is written under a
// temporary name and renamed, so a concurrent or interrupted Unpack leaves
// no half-written directory behind.
func Unpack(cache string) (string, error) {
	names, err := fs.Glob(Files, "*")
	if err != nil {
		return "", err
	}
	names = append(names, ".npmrc") // Glob skips no names, but be explicit about the dotfile
	names = dedup(names)
	sort.Strings(names)
	h := sha256.New()
	for _, n := range names {
		b, err := Files.ReadFile(n)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s %d\n", n, len(b))
		h.Write(b)
	}
	dir := filepath.Join(cache, "tla-"+hex.EncodeToString(h.Sum(nil))[:16])
	defer prune(cache, dir, time.Now())
	if _, err := os.Stat(filepath.Join(dir, "run.mjs")); err == nil {
		markUsed(dir)
		return dir, nil
	}
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(cache, "unpacking-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp) // a no-op after the rename
	for _, n := range names {
		b, err := Files.ReadFile(n)
		if err != nil {
			return "", err
		}
		if err := os.WriteFile(filepath.Join(tmp, n), b, 0o644); err != nil {
			return "", err
		}
	}
	if err := os.Rename(tmp, dir); err != nil {
		if _, statErr := os.Stat(filepath.Join(dir, "run.mjs")); statErr == nil {
			return dir, nil // another gmpcheck unpacked it first
		}
		return "", err
	}
	markUsed(dir)
	return dir, nil
}

// unusedFor is how long an unpacked directory of other modules (another
// gmpcheck version's, with its own node_modules, some 10 MB) stays in the
// cache after its last use. A binary of that version still in use touches
// its directory on every run, so only versions nobody ran for this long go.
const unusedFor = 14 * 24 * time.Hour

// lastUsed names the file whose modification time is a directory's last use.
const lastUsed = ".last-used"

func markUsed(dir string) {
	now := time.Now()
	p := filepath.Join(dir, lastUsed)
	if err := os.Chtimes(p, now, now); err != nil {
		os.WriteFile(p, nil, 0o644)
	}
}

// prune removes from cache the tla-* directories other than keep that were
// last used (or, without a mark, last modified) more than unusedFor before
// now, and unpacking-* directories an interrupted Unpack left a day ago or
// more. Failures are ignored: pruning is housekeeping, never a reason to
// fail a check.
func prune(cache, keep string, now time.Time) {
	entries, err := os.ReadDir(cache)
	if err != nil {
		return
	}
	for _, e := range entries {
		p := filepath.Join(cache, e.Name())
		if !e.IsDir() || p == keep {
			continue
		}
		switch {
		case strings.HasPrefix(e.Name(), "tla-"):
			fi, err := os.Stat(filepath.Join(p, lastUsed))
			if err != nil {
				fi, err = os.Stat(p)
			}
			if err != nil || now.Sub(fi.ModTime()) < unusedFor {
				continue
			}
		case strings.HasPrefix(e.Name(), "unpacking-"):
			fi, err := os.Stat(p)
			if err != nil || now.Sub(fi.ModTime()) < 24*time.Hour {
				continue
			}
		default:
			continue
		}
		os.RemoveAll(p)
	}
}

func dedup(names []string) []string {
	sort.Strings(names)
	out := names[:0]
	for i, n := range names {
		if i == 0 || n != names[i-1] {
			out = append(out, n)
		}
	}
	return out
}

// Dir is the tla directory a command works in: dir if given, else tla/
// in the working directory or a parent (a checkout), else the modules
// built into the binary, unpacked into the user cache directory.
func Dir(dir string) (string, error) {
	if dir != "" {
		return tlacheck.FindDir(dir)
	}
	if found, err := tlacheck.FindDir("."); err == nil {
		return found, nil
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("not in a checkout, and no cache directory to unpack the built-in TLA+ modules into: %v", err)
	}
	return Unpack(filepath.Join(cache, "gmpcheck"))
}
