package web

import (
	"encoding/json"
	"net/http"

	cdx "github.com/CycloneDX/cyclonedx-go"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/triage"
)

// maxVEXBody bounds an imported VEX document.
const maxVEXBody = 8 << 20

// exportVEX serves GET /api/vex?format=openvex|cyclonedx[&spec_version=1.5|1.6][&asset_id=|&product_id=].
func (s *Server) exportVEX(w http.ResponseWriter, r *http.Request) {
	sc, err := vexScope(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	orgID := currentUser(r).OrganizationID
	if r.URL.Query().Get("format") == "cyclonedx" {
		spec, err := triage.CycloneDXSpec(r.URL.Query().Get("spec_version"))
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		bom, err := s.triage.ExportCycloneDX(r.Context(), orgID, sc)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		w.Header().Set("Content-Type", "application/vnd.cyclonedx+json; version="+spec.String())
		_ = cdx.NewBOMEncoder(w, cdx.BOMFileFormatJSON).EncodeVersion(bom, spec)
		return
	}
	doc, err := s.triage.ExportOpenVEX(r.Context(), orgID, sc)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = doc.ToJSON(w)
}

func vexScope(r *http.Request) (triage.ExportScope, error) {
	if err := allowQuery(r, "format", "spec_version", "asset_id", "product_id"); err != nil {
		return triage.ExportScope{}, err
	}
	if f := r.URL.Query().Get("format"); f != "" && f != "openvex" && f != "cyclonedx" {
		return triage.ExportScope{}, appliance.Invalid("format", "enum", "format must be openvex or cyclonedx")
	}
	asset, err := queryInt(r, "asset_id")
	if err != nil {
		return triage.ExportScope{}, err
	}
	product, err := queryInt(r, "product_id")
	return triage.ExportScope{AssetID: int64(asset), ProductID: int64(product)}, err
}

type vexImportJSON struct {
	Created  int `json:"created"`
	Existing int `json:"existing"`
	Skipped  int `json:"skipped"`
}

// importVEX serves POST /api/vex: an OpenVEX or CycloneDX VEX document whose not_affected
// statements become rules.
func (s *Server) importVEX(w http.ResponseWriter, r *http.Request) {
	var doc json.RawMessage
	if err := decodeJSON(w, r, maxVEXBody, &doc); err != nil {
		s.writeError(w, r, err)
		return
	}
	res, err := s.triage.ImportVEX(r.Context(), currentUser(r), doc)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, vexImportJSON{Created: res.Created, Existing: res.Existing, Skipped: res.Skipped})
}
