package kb

import (
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// snapshotRecord is the wire form of a Mapping in a snapshot.
type snapshotRecord struct {
	VendorPattern  string    `json:"vendor_pattern"`
	ProductPattern string    `json:"product_pattern"`
	CPEVendor      string    `json:"cpe_vendor"`
	CPEProduct     string    `json:"cpe_product"`
	Source         string    `json:"source"`
	Confidence     float64   `json:"confidence"`
	UpdatedAt      time.Time `json:"updated_at"`
	Retracted      bool      `json:"retracted,omitempty"`
	Part           string    `json:"part,omitempty"`
}

func recordOf(m Mapping) snapshotRecord {
	return snapshotRecord{VendorPattern: m.VendorPattern, ProductPattern: m.ProductPattern, CPEVendor: m.CPEVendor,
		CPEProduct: m.CPEProduct, Source: string(m.Source), Confidence: m.ConfidenceValue(), UpdatedAt: m.UpdatedAt, Retracted: m.Retracted, Part: m.Part}
}

func (r snapshotRecord) mapping() Mapping {
	return Mapping{VendorPattern: r.VendorPattern, ProductPattern: r.ProductPattern, CPEVendor: r.CPEVendor,
		CPEProduct: r.CPEProduct, Source: internSource(appliance.KBSource(r.Source)), Confidence: Conf(r.Confidence), UpdatedAt: r.UpdatedAt, Retracted: r.Retracted, Part: r.Part}
}

// snapshotPreamble is everything of the snapshot JSON before the mappings array.
type snapshotPreamble struct {
	Format    string    `json:"format"`
	Version   int       `json:"version"`
	CreatedAt time.Time `json:"created_at"`
	Serial    uint64    `json:"serial"`
	Count     int       `json:"count"`
}

// maxPreallocatedMappings bounds the slice reserved up front from the declared count.
const maxPreallocatedMappings = 1 << 20

func encodeSnapshot(w io.Writer, snap Snapshot) error {
	gz := gzip.NewWriter(w)
	if err := encodeSnapshotJSON(gz, snap); err != nil {
		return err
	}
	if err := gz.Close(); err != nil {
		return fmt.Errorf("compress snapshot: %w", err)
	}
	return nil
}

func encodeSnapshotJSON(w io.Writer, snap Snapshot) error {
	preamble, err := json.Marshal(snapshotPreamble{snapshotFormat, snapshotVersion, snap.CreatedAt.UTC(), snap.Serial, len(snap.Mappings)})
	if err != nil {
		return fmt.Errorf("encode snapshot: %w", err)
	}
	// Splice the mappings array into the preamble object: drop its closing brace.
	if _, err := fmt.Fprintf(w, `%s,"mappings":[`, preamble[:len(preamble)-1]); err != nil {
		return fmt.Errorf("encode snapshot: %w", err)
	}
	enc := json.NewEncoder(w)
	for i, m := range snap.Mappings {
		if err := encodeMapping(w, enc, i, m); err != nil {
			return err
		}
	}
	if _, err := io.WriteString(w, "]}\n"); err != nil {
		return fmt.Errorf("encode snapshot: %w", err)
	}
	return nil
}

func encodeMapping(w io.Writer, enc *json.Encoder, i int, m Mapping) error {
	if err := validateSnapshotMapping(i, m); err != nil {
		return err
	}
	if i > 0 {
		if _, err := io.WriteString(w, ","); err != nil {
			return fmt.Errorf("encode snapshot: %w", err)
		}
	}
	m.UpdatedAt = m.UpdatedAt.UTC()
	if err := enc.Encode(recordOf(m)); err != nil {
		return fmt.Errorf("encode snapshot mapping %d: %w", i, err)
	}
	return nil
}

func decodeSnapshot(r io.Reader) (Snapshot, error) {
	gz, err := gzip.NewReader(r)
	if err != nil {
		return Snapshot{}, fmt.Errorf("decompress: %w", err)
	}
	dec := json.NewDecoder(gz)
	snap, err := decodeSnapshotObject(dec)
	if err != nil {
		return Snapshot{}, err
	}
	// Reading to the end also checks the gzip CRC and refuses trailing data.
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return Snapshot{}, fmt.Errorf("unexpected data after the snapshot: %v", err)
	}
	return snap, nil
}

func decodeSnapshotObject(dec *json.Decoder) (Snapshot, error) {
	var pre snapshotPreamble
	var snap Snapshot
	if err := expectDelim(dec, '{'); err != nil {
		return Snapshot{}, err
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return Snapshot{}, fmt.Errorf("decode snapshot: %w", err)
		}
		if err := decodeSnapshotField(dec, key, &pre, &snap); err != nil {
			return Snapshot{}, err
		}
	}
	if err := expectDelim(dec, '}'); err != nil {
		return Snapshot{}, err
	}
	if err := checkPreamble(pre, snap); err != nil {
		return Snapshot{}, err
	}
	snap.CreatedAt, snap.Serial = pre.CreatedAt, pre.Serial
	return snap, nil
}

// decodeSnapshotField reads one top-level member; unknown members are skipped.
func decodeSnapshotField(dec *json.Decoder, key json.Token, pre *snapshotPreamble, snap *Snapshot) error {
	var target any
	switch key {
	case "format":
		target = &pre.Format
	case "version":
		target = &pre.Version
	case "created_at":
		target = &pre.CreatedAt
	case "serial":
		target = &pre.Serial
	case "count":
		target = &pre.Count
	case "mappings":
		return decodeMappings(dec, pre.Count, snap)
	default:
		target = new(json.RawMessage)
	}
	if err := dec.Decode(target); err != nil {
		return fmt.Errorf("decode snapshot %v: %w", key, err)
	}
	return nil
}

func decodeMappings(dec *json.Decoder, declared int, snap *Snapshot) error {
	if snap.Mappings != nil {
		return errors.New("decode snapshot: mappings appear twice")
	}
	if err := expectDelim(dec, '['); err != nil {
		return err
	}
	snap.Mappings = make([]Mapping, 0, min(max(declared, 0), maxPreallocatedMappings))
	for i := 0; dec.More(); i++ {
		var rec snapshotRecord
		if err := dec.Decode(&rec); err != nil {
			return fmt.Errorf("decode snapshot mapping %d: %w", i, err)
		}
		m := rec.mapping()
		if err := validateSnapshotMapping(i, m); err != nil {
			return err
		}
		snap.Mappings = append(snap.Mappings, m)
	}
	return expectDelim(dec, ']')
}

func checkPreamble(pre snapshotPreamble, snap Snapshot) error {
	switch {
	case pre.Format != snapshotFormat:
		return fmt.Errorf("format %q is not %q", pre.Format, snapshotFormat)
	case pre.Version != snapshotVersion:
		return fmt.Errorf("snapshot version %d is not supported (want %d)", pre.Version, snapshotVersion)
	case snap.Mappings == nil:
		return errors.New("snapshot has no mappings array")
	case pre.Count != len(snap.Mappings):
		return fmt.Errorf("snapshot declares %d mappings but holds %d", pre.Count, len(snap.Mappings))
	}
	return nil
}

func expectDelim(dec *json.Decoder, want json.Delim) error {
	tok, err := dec.Token()
	if err != nil {
		return fmt.Errorf("decode snapshot: %w", err)
	}
	if tok != want {
		return fmt.Errorf("decode snapshot: found %v, want %v", tok, want)
	}
	return nil
}

// internSource shares the three source strings instead of allocating one per mapping.
func internSource(s appliance.KBSource) appliance.KBSource {
	switch s {
	case appliance.SourceNVD:
		return appliance.SourceNVD
	case appliance.SourceCommunity:
		return appliance.SourceCommunity
	case appliance.SourceCurated:
		return appliance.SourceCurated
	}
	return s
}

func validateSnapshotMapping(i int, m Mapping) error {
	fields := [...]struct{ name, value string }{
		{"vendor_pattern", m.VendorPattern}, {"product_pattern", m.ProductPattern},
		{"cpe_vendor", m.CPEVendor}, {"cpe_product", m.CPEProduct},
	}
	for _, f := range fields {
		if f.value == "" {
			return appliance.Invalid(fmt.Sprintf("mappings[%d].%s", i, f.name), "required", "is required")
		}
	}
	switch m.Source {
	case appliance.SourceNVD, appliance.SourceCommunity, appliance.SourceCurated:
	default:
		return appliance.Invalid(fmt.Sprintf("mappings[%d].source", i), "enum", "source must be nvd, community or curated")
	}
	if m.Confidence == nil || !inUnitRange(*m.Confidence) {
		return appliance.Invalid(fmt.Sprintf("mappings[%d].confidence", i), "range", "must be between 0 and 1")
	}
	return nil
}
