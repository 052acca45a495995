// Command goabt-install is what `make install` and `make uninstall` run (docs/install.md): it
// copies the tree make install puts together (build/stage) into a prefix, never over a file it
// did not write there, records what it wrote in a manifest, and removes exactly that.
//
//	goabt-install install -root DESTDIR/PREFIX -stage build/stage [-overwrite] [-aliases yes|no] [-version V]
//	goabt-install uninstall -root DESTDIR/PREFIX
//
// The manifest, <root>/share/goabt/install-manifest, lists each file and link with its SHA-256
// or its target, the directories install created, and the backups it keeps, with paths relative
// to the root, so that a tree staged under DESTDIR is uninstalled the same way once in place.
//
// install checks every path before it writes anything. A path it may write is free, or holds
// what the manifest says an earlier install wrote there, unchanged; any other file is refused,
// named, unless -overwrite, which moves it to <root>/share/goabt/backup/<path> first. Each file
// is written to a temporary name beside it and renamed into place, so that a running program
// keeps the library it mapped. What an earlier install wrote and this one does not is removed as
// uninstall removes it.
//
// uninstall removes each file and link the manifest lists that is still as install wrote it,
// keeps (and names) one changed since, puts each backup back where it was, removes the manifest,
// and then each directory install created that is left empty. Without a manifest it removes
// nothing and fails.
package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
)

const (
	manifestPath = "share/goabt/install-manifest"
	backupDir    = "share/goabt/backup"
)

func main() {
	if len(os.Args) < 2 || (os.Args[1] != "install" && os.Args[1] != "uninstall") {
		fmt.Fprintln(os.Stderr, "usage: goabt-install install -root DIR -stage DIR [-overwrite] [-aliases yes|no] [-version V]\n"+
			"       goabt-install uninstall -root DIR")
		os.Exit(2)
	}
	cmd := os.Args[1]
	fl := flag.NewFlagSet("goabt-install "+cmd, flag.ExitOnError)
	root := fl.String("root", "", "the prefix, under DESTDIR if any")
	stage := fl.String("stage", "", "install: the tree to install")
	overwrite := fl.Bool("overwrite", false, "install: replace files goabt did not install, keeping each in "+backupDir)
	aliases := fl.String("aliases", "yes", "install: the ABT_ALIASES the tree was staged with (for the advice on refusal)")
	version := fl.String("version", "", "install: goabt's version, recorded in the manifest")
	_ = fl.Parse(os.Args[2:])
	if *root == "" || (cmd == "install" && *stage == "") {
		fl.Usage()
		os.Exit(2)
	}
	var err error
	if cmd == "install" {
		err = install(*root, *stage, *overwrite, *aliases == "yes", *version)
	} else {
		err = uninstall(*root)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "goabt:", err)
		os.Exit(1)
	}
}

// entry is a file or a link install wrote: sum is a file's SHA-256, or a link's target.
type entry struct {
	kind string // "file" or "link"
	sum  string
	path string // relative to the root
}

type manifest struct {
	version string
	entries []entry
	dirs    []string        // directories install created, relative to the root
	backups map[string]bool // paths whose foreign file install kept in backupDir
}

const manifestHeader = `# goabt's install manifest: what make install wrote under this prefix (paths relative to it),
# each file with its SHA-256 and each link with its target, the directories it created, and the
# paths whose earlier file it kept in ` + backupDir + `/. make uninstall removes exactly these.
`

func readManifest(root string) (*manifest, error) {
	f, err := os.Open(filepath.Join(root, manifestPath))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	m := &manifest{backups: map[string]bool{}}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Split(line, "\t")
		bad := fmt.Errorf("%s, line %d: not a manifest line: %q", filepath.Join(root, manifestPath), n, line)
		switch {
		case fields[0] == "version" && len(fields) == 2:
			m.version = fields[1]
		case (fields[0] == "file" || fields[0] == "link") && len(fields) == 3 && clean(fields[2]):
			m.entries = append(m.entries, entry{kind: fields[0], sum: fields[1], path: fields[2]})
		case fields[0] == "dir" && len(fields) == 2 && clean(fields[1]):
			m.dirs = append(m.dirs, fields[1])
		case fields[0] == "backup" && len(fields) == 2 && clean(fields[1]):
			m.backups[fields[1]] = true
		default:
			return nil, bad
		}
	}
	return m, sc.Err()
}

// clean says whether p is a relative path that stays under the root.
func clean(p string) bool {
	return p != "" && filepath.IsLocal(p) && filepath.Clean(p) == p
}

func writeManifest(root string, m *manifest) error {
	var b strings.Builder
	b.WriteString(manifestHeader)
	fmt.Fprintf(&b, "version\t%s\n", m.version)
	for _, d := range m.dirs {
		fmt.Fprintf(&b, "dir\t%s\n", d)
	}
	for _, e := range m.entries {
		fmt.Fprintf(&b, "%s\t%s\t%s\n", e.kind, e.sum, e.path)
	}
	var backups []string
	for p := range m.backups {
		backups = append(backups, p)
	}
	sort.Strings(backups)
	for _, p := range backups {
		fmt.Fprintf(&b, "backup\t%s\n", p)
	}
	return writeFile(filepath.Join(root, manifestPath), strings.NewReader(b.String()), 0o644)
}

// describe returns what is at path as an entry (kind "" when nothing is; "dir", "other" for what
// install never writes).
func describe(path string) (entry, error) {
	st, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return entry{}, nil
	case err != nil:
		return entry{}, err
	case st.Mode().IsRegular():
		f, err := os.Open(path)
		if err != nil {
			return entry{}, err
		}
		defer f.Close()
		h := sha256.New()
		if _, err := io.Copy(h, f); err != nil {
			return entry{}, err
		}
		return entry{kind: "file", sum: hex.EncodeToString(h.Sum(nil))}, nil
	case st.Mode()&fs.ModeSymlink != 0:
		target, err := os.Readlink(path)
		return entry{kind: "link", sum: target}, err
	case st.IsDir():
		return entry{kind: "dir"}, nil
	}
	return entry{kind: "other"}, nil
}

// writeFile writes path from r through a temporary file beside it, renamed into place.
func writeFile(path string, r io.Reader, mode fs.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".goabt-install-*")
	if err != nil {
		return err
	}
	_, err = io.Copy(tmp, r)
	if err == nil {
		err = tmp.Chmod(mode)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
	}
	return err
}

// writeLink makes path a link to target, through a temporary link renamed into place.
func writeLink(path, target string) error {
	tmp := filepath.Join(filepath.Dir(path), ".goabt-install-link-"+filepath.Base(path))
	_ = os.Remove(tmp)
	if err := os.Symlink(target, tmp); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = os.Remove(tmp)
		return err
	}
	return nil
}

// mkdirs creates dir (relative to root) and its missing parents, and returns those it created,
// outermost first.
func mkdirs(root, dir string) ([]string, error) {
	var created []string
	parts := strings.Split(dir, string(filepath.Separator))
	for i := range parts {
		rel := filepath.Join(parts[:i+1]...)
		full := filepath.Join(root, rel)
		st, err := os.Stat(full)
		if err == nil {
			if !st.IsDir() {
				return created, fmt.Errorf("%s is not a directory", full)
			}
			continue
		}
		if err := os.Mkdir(full, 0o755); err != nil {
			return created, err
		}
		created = append(created, rel)
	}
	return created, nil
}

// blockedBy returns the nearest existing ancestor of rel (under root) that is not a directory,
// or "".
func blockedBy(root, rel string) string {
	for d := filepath.Dir(rel); d != "."; d = filepath.Dir(d) {
		st, err := os.Stat(filepath.Join(root, d))
		if err == nil {
			if st.IsDir() {
				return ""
			}
			return filepath.Join(root, d)
		}
	}
	return ""
}

// move renames from to to, or copies it when they are on different file systems.
func move(from, to string) error {
	err := os.Rename(from, to)
	if !errors.Is(err, syscall.EXDEV) {
		return err
	}
	st, err := os.Lstat(from)
	if err != nil {
		return err
	}
	if st.Mode()&fs.ModeSymlink != 0 {
		target, err := os.Readlink(from)
		if err != nil {
			return err
		}
		if err := writeLink(to, target); err != nil {
			return err
		}
	} else {
		f, err := os.Open(from)
		if err != nil {
			return err
		}
		err = writeFile(to, f, st.Mode().Perm())
		f.Close()
		if err != nil {
			return err
		}
	}
	return os.Remove(from)
}

func install(root, stage string, overwrite, aliases bool, version string) error {
	var staged []entry
	modes := map[string]fs.FileMode{}
	err := filepath.WalkDir(stage, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(stage, path)
		e, err := describe(path)
		if err != nil {
			return err
		}
		if e.kind != "file" && e.kind != "link" {
			return fmt.Errorf("%s: neither a file nor a link", path)
		}
		e.path = rel
		if st, err := os.Stat(path); err == nil && e.kind == "file" {
			modes[rel] = st.Mode().Perm()
		}
		staged = append(staged, e)
		return nil
	})
	if err != nil {
		return err
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return err
	}

	old, err := readManifest(root)
	if errors.Is(err, fs.ErrNotExist) {
		old = &manifest{backups: map[string]bool{}}
	} else if err != nil {
		return err
	}
	oldEntries := map[string]entry{}
	for _, e := range old.entries {
		oldEntries[e.path] = e
	}

	// Every path is checked before anything is written.
	var foreign, changed, blocked []string
	for _, e := range staged {
		full := filepath.Join(root, e.path)
		if b := blockedBy(root, e.path); b != "" {
			blocked = append(blocked, b+" (not a directory)")
			continue
		}
		here, err := describe(full)
		if err != nil {
			return err
		}
		switch was, ours := oldEntries[e.path]; {
		case here.kind == "":
		case here.kind == "dir" || here.kind == "other":
			blocked = append(blocked, full+" (a "+map[string]string{"dir": "directory", "other": "special file"}[here.kind]+")")
		case ours && here.kind == was.kind && here.sum == was.sum:
		case ours:
			changed = append(changed, full)
		default:
			foreign = append(foreign, full)
		}
	}
	if len(blocked) > 0 {
		return fmt.Errorf("make install wrote nothing: goabt's files cannot go where these are, which it will not remove:\n  %s\n"+
			"Install goabt in another PREFIX.", strings.Join(blocked, "\n  "))
	}
	refused := append(append([]string(nil), foreign...), changed...)
	if len(refused) > 0 && !overwrite {
		var b strings.Builder
		fmt.Fprintf(&b, "make install wrote nothing: it would overwrite files it did not install under %s", root)
		if len(foreign) > 0 {
			fmt.Fprintf(&b, ":\n  %s", strings.Join(foreign, "\n  "))
		}
		if len(changed) > 0 {
			fmt.Fprintf(&b, "\nand files an earlier goabt install wrote that were changed since:\n  %s", strings.Join(changed, "\n  "))
		}
		b.WriteString("\nTo keep them, install goabt beside them:\n")
		if aliases {
			b.WriteString("  make install ABT_ALIASES=no PREFIX=...   (goabt's own names only: no libabt.so*, no argobots.pc,\n" +
				"                                          and its headers in include/goabt/)\n")
		}
		b.WriteString("  make install PREFIX=<another prefix>\n" +
			"or replace them, each kept in " + filepath.Join(root, backupDir) + "/ for make uninstall to put back:\n" +
			"  make install OVERWRITE=yes")
		return errors.New(b.String())
	}
	for _, p := range refused {
		rel, _ := filepath.Rel(root, p)
		if old.backups[rel] {
			return fmt.Errorf("make install wrote nothing: %s was changed since goabt installed it, and the file it replaced "+
				"is kept in %s: run make uninstall first (which puts that one back), or move %s away", p,
				filepath.Join(root, backupDir, rel), p)
		}
		if b, _ := describe(filepath.Join(root, backupDir, rel)); b.kind != "" {
			return fmt.Errorf("make install wrote nothing: %s is in the way of the backup of %s",
				filepath.Join(root, backupDir, rel), p)
		}
	}

	// m says what is goabt's under root at every step: the old manifest's entries, each replaced
	// as it is written again, then the new ones.
	m := &manifest{version: version, entries: append([]entry(nil), old.entries...), dirs: old.dirs, backups: old.backups}
	wrote := func(e entry) {
		for i := range m.entries {
			if m.entries[i].path == e.path {
				m.entries[i] = e
				return
			}
		}
		m.entries = append(m.entries, e)
	}
	addDirs := func(dir string) error {
		created, err := mkdirs(root, dir)
		m.dirs = append(m.dirs, created...)
		return err
	}
	// The manifest is written after each step that changes the prefix, so that uninstall always
	// knows what is there.
	record := func(err error) error {
		if werr := writeManifest(root, m); err == nil {
			err = werr
		}
		return err
	}
	if err := addDirs(filepath.Dir(manifestPath)); err != nil {
		return record(err)
	}
	for _, p := range refused {
		rel, _ := filepath.Rel(root, p)
		backup := filepath.Join(root, backupDir, rel)
		if err := addDirs(filepath.Dir(filepath.Join(backupDir, rel))); err != nil {
			return record(err)
		}
		if err := move(p, backup); err != nil {
			return record(err)
		}
		m.backups[rel] = true
		fmt.Printf("kept %s as %s\n", p, backup)
	}
	for _, e := range staged {
		if err := addDirs(filepath.Dir(e.path)); err != nil {
			return record(err)
		}
		full := filepath.Join(root, e.path)
		if e.kind == "link" {
			err = writeLink(full, e.sum)
		} else {
			var f *os.File
			if f, err = os.Open(filepath.Join(stage, e.path)); err == nil {
				err = writeFile(full, f, modes[e.path])
				f.Close()
			}
		}
		if err != nil {
			return record(err)
		}
		wrote(e)
		if _, again := oldEntries[e.path]; !again {
			fmt.Printf("installed %s\n", full)
		} else {
			fmt.Printf("installed %s (again)\n", full)
		}
	}
	// What an earlier install wrote and this one does not (another version's library, the
	// headers of another ABT_ALIASES) goes as uninstall would take it.
	written := map[string]bool{}
	for _, e := range staged {
		written[e.path] = true
	}
	for _, e := range old.entries {
		if !written[e.path] {
			removeEntry(root, e, m.backups)
		}
	}
	m.entries = staged
	return record(nil)
}

// removeEntry removes e from under root if it is as install wrote it, and puts back the file
// it replaced, if one is kept. It says what it did; a file changed since is kept.
func removeEntry(root string, e entry, backups map[string]bool) {
	full := filepath.Join(root, e.path)
	here, err := describe(full)
	switch {
	case err != nil:
		fmt.Printf("kept %s: %v\n", full, err)
		return
	case here.kind == "":
		fmt.Printf("%s was already gone\n", full)
	case here.kind != e.kind || here.sum != e.sum:
		fmt.Printf("kept %s: changed since make install wrote it\n", full)
		if backups[e.path] {
			fmt.Printf("kept %s: the file make install replaced there; put it back by hand\n",
				filepath.Join(root, backupDir, e.path))
			delete(backups, e.path)
		}
		return
	default:
		if err := os.Remove(full); err != nil {
			fmt.Printf("kept %s: %v\n", full, err)
			return
		}
		fmt.Printf("removed %s\n", full)
	}
	if backups[e.path] {
		backup := filepath.Join(root, backupDir, e.path)
		if err := move(backup, full); err != nil {
			fmt.Printf("kept %s: %v\n", backup, err)
			return
		}
		delete(backups, e.path)
		fmt.Printf("put back %s\n", full)
	}
}

func uninstall(root string) error {
	m, err := readManifest(root)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("make uninstall removed nothing: no goabt install manifest at %s (was goabt installed "+
			"with this PREFIX and DESTDIR, by a make install that writes one?)", filepath.Join(root, manifestPath))
	} else if err != nil {
		return err
	}
	for i := len(m.entries) - 1; i >= 0; i-- {
		removeEntry(root, m.entries[i], m.backups)
	}
	// A backup still kept (beside a changed file, named above) stays, and so does its directory.
	if err := os.Remove(filepath.Join(root, manifestPath)); err != nil {
		return err
	}
	dirs := append([]string(nil), m.dirs...)
	sort.Slice(dirs, func(i, j int) bool { return dirs[i] > dirs[j] }) // a directory after those in it
	for _, d := range dirs {
		_ = os.Remove(filepath.Join(root, d)) // only when empty
	}
	return nil
}
