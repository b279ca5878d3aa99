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
	if _, err := os.Stat(filepath.Join(dir, "run.mjs")); err == nil {
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
	return dir, nil
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
