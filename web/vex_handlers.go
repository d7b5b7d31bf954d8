package web

import (
	"encoding/json"
	"net/http"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/triage"
)

// maxVEXBody bounds an imported VEX document.
const maxVEXBody = 8 << 20

// exportVEX serves GET /api/vex?format=openvex[&asset_id=|&product_id=].
func (s *Server) exportVEX(w http.ResponseWriter, r *http.Request) {
	sc, err := vexScope(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	doc, err := s.triage.ExportOpenVEX(r.Context(), currentUser(r).OrganizationID, sc)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = doc.ToJSON(w)
}

func vexScope(r *http.Request) (triage.ExportScope, error) {
	if err := allowQuery(r, "format", "asset_id", "product_id"); err != nil {
		return triage.ExportScope{}, err
	}
	if f := r.URL.Query().Get("format"); f != "" && f != "openvex" {
		return triage.ExportScope{}, appliance.Invalid("format", "enum", "format must be openvex (CycloneDX VEX is not available yet)")
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

// importVEX serves POST /api/vex: an OpenVEX document whose not_affected statements become rules.
func (s *Server) importVEX(w http.ResponseWriter, r *http.Request) {
	var doc json.RawMessage
	if err := decodeJSON(w, r, maxVEXBody, &doc); err != nil {
		s.writeError(w, r, err)
		return
	}
	res, err := s.triage.ImportOpenVEX(r.Context(), currentUser(r), doc)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, vexImportJSON{Created: res.Created, Existing: res.Existing, Skipped: res.Skipped})
}
