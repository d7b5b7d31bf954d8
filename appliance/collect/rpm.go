package collect

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"

	rpmdb "github.com/knqyf263/go-rpmdb/pkg"
)

// RPMHeaders calls fn with the header blob of every package of an rpm sqlite database file
// (sqlitestore.EachRPMHeader: the SQL stays in the store package).
type RPMHeaders func(file string, fn func(blob []byte) error) error

// ErrRPMNDB: SUSE's ndb rpm database (Packages.db) has no pure-Go reader here.
var ErrRPMNDB = errors.New("the rpm ndb database (Packages.db) is not supported")

// The rpm database lives in one of these, in this order of preference.
var rpmDBs = []struct{ path, kind string }{
	{"var/lib/rpm/rpmdb.sqlite", "sqlite"},
	{"usr/lib/sysimage/rpm/rpmdb.sqlite", "sqlite"},
	{"var/lib/rpm/Packages", "bdb"},
	{"usr/lib/sysimage/rpm/Packages.db", "ndb"},
	{"var/lib/rpm/Packages.db", "ndb"},
}

// RPM lists the packages of the rpm database found under root (the host's root on disk;
// fsys is used to find it). sqlite databases are read through headers, Berkeley DB ones with
// go-rpmdb.
func RPM(fsys fs.FS, root string, headers RPMHeaders) ([]Product, error) {
	for _, db := range rpmDBs {
		if _, err := fs.Stat(fsys, db.path); err != nil {
			continue
		}
		file := filepath.Join(root, filepath.FromSlash(db.path))
		var (
			prods []Product
			err   error
		)
		switch db.kind {
		case "sqlite":
			prods, err = rpmSQLite(file, headers)
		case "bdb":
			prods, err = rpmBDB(file)
		default:
			err = ErrRPMNDB
		}
		if err != nil {
			return nil, fmt.Errorf("read rpm database /%s: %w", db.path, err)
		}
		return prods, nil
	}
	return nil, nil
}

// rpmPackage is one header's identity.
type rpmPackage struct {
	name, version, release, arch, sourceRPM, vendor string
	epoch                                           int
	hasEpoch                                        bool
}

func (p rpmPackage) product() Product {
	v := p.version + "-" + p.release
	if p.hasEpoch && p.epoch > 0 {
		v = strconv.Itoa(p.epoch) + ":" + v
	}
	out := Product{Vendor: p.vendor, Product: p.name, Version: v, Arch: p.arch, Source: "rpm"}
	// openssl-3.0.7-27.el9.src.rpm → openssl, 3.0.7-27.el9
	nvr := strings.TrimSuffix(strings.TrimSuffix(p.sourceRPM, ".rpm"), ".src")
	if i := strings.LastIndexByte(nvr, '-'); i > 0 {
		if j := strings.LastIndexByte(nvr[:i], '-'); j > 0 {
			out.SourcePackage, out.SourceVersion = nvr[:j], nvr[j+1:]
		}
	}
	return out
}

func rpmSQLite(file string, headers RPMHeaders) ([]Product, error) {
	if headers == nil {
		return nil, errors.New("no reader for rpm sqlite databases")
	}
	var out []Product
	err := headers(file, func(blob []byte) error {
		p, err := parseRPMHeader(blob)
		if err != nil {
			return err
		}
		if p.name != "gpg-pubkey" { // imported signing keys, not software
			out = append(out, p.product())
		}
		return nil
	})
	return out, err
}

func rpmBDB(file string) ([]Product, error) {
	db, err := rpmdb.Open(file)
	if err != nil {
		return nil, err
	}
	pkgs, err := db.ListPackages()
	if err != nil {
		return nil, err
	}
	out := make([]Product, 0, len(pkgs))
	for _, p := range pkgs {
		if p.Name == "gpg-pubkey" {
			continue
		}
		out = append(out, rpmPackage{name: p.Name, version: p.Version, release: p.Release, arch: p.Arch,
			sourceRPM: p.SourceRpm, vendor: p.Vendor, epoch: p.Epoch, hasEpoch: p.Epoch > 0}.product())
	}
	return out, nil
}

// rpm header tags and types we read.
const (
	tagName      = 1000
	tagVersion   = 1001
	tagRelease   = 1002
	tagEpoch     = 1003
	tagVendor    = 1011
	tagArch      = 1022
	tagSourceRPM = 1044

	typeInt32  = 4
	typeString = 6
	typeI18N   = 9
)

// parseRPMHeader reads an rpm header blob as stored in the database: the index count and
// data length (big-endian int32 each), the index entries (tag, type, offset, count), then
// the data store.
func parseRPMHeader(b []byte) (rpmPackage, error) {
	var p rpmPackage
	if len(b) < 8 {
		return p, errors.New("rpm header: too short")
	}
	il, dl := int(binary.BigEndian.Uint32(b)), int(binary.BigEndian.Uint32(b[4:]))
	if il < 1 || il > 1<<16 || dl < 0 || 8+16*il+dl > len(b) {
		return p, errors.New("rpm header: bad index or data length")
	}
	data := b[8+16*il : 8+16*il+dl]
	for i := 0; i < il; i++ {
		e := b[8+16*i:]
		tag, typ := binary.BigEndian.Uint32(e), binary.BigEndian.Uint32(e[4:])
		off := int(binary.BigEndian.Uint32(e[8:]))
		if off < 0 || off >= len(data) {
			continue
		}
		switch {
		case tag == tagEpoch && typ == typeInt32 && off+4 <= len(data):
			p.epoch, p.hasEpoch = int(int32(binary.BigEndian.Uint32(data[off:]))), true
		case typ == typeString || typ == typeI18N:
			s := cString(data[off:])
			switch tag {
			case tagName:
				p.name = s
			case tagVersion:
				p.version = s
			case tagRelease:
				p.release = s
			case tagVendor:
				p.vendor = s
			case tagArch:
				p.arch = s
			case tagSourceRPM:
				p.sourceRPM = s
			}
		}
	}
	if p.name == "" || p.version == "" {
		return p, errors.New("rpm header: no name or version")
	}
	return p, nil
}

func cString(b []byte) string {
	for i, c := range b {
		if c == 0 {
			return string(b[:i])
		}
	}
	return string(b)
}
