package web

import (
	"bytes"
	"errors"
	"net/http"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/sbom"
)

// maxSBOMBody bounds an SBOM upload; the libraries decode a whole document, so the cap is the
// same as an inventory's (a 900-component CycloneDX document is about 2 MB).
const maxSBOMBody = maxInventoryBody

// submitSBOM takes a CycloneDX, SPDX or Syft document as the full inventory of the asset
// named by ?hostname= (else the application the document describes).
func (s *Server) submitSBOM(w http.ResponseWriter, r *http.Request) {
	if err := allowQuery(r, "hostname", "kind"); err != nil {
		s.writeError(w, r, err)
		return
	}
	body, err := readBody(w, r, min(s.opts.MaxBodyBytes, maxSBOMBody))
	if err != nil {
		if mbe := new(http.MaxBytesError); !errors.As(err, &mbe) {
			err = appliance.Invalid("body", "read", "request body could not be read")
		}
		s.writeError(w, r, err)
		return
	}
	if err := checkText(body); err != nil {
		s.writeError(w, r, err)
		return
	}
	doc, err := sbom.Read(bytes.NewReader(body))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	rep, err := doc.Report(sbomHostname(r.URL.Query().Get("hostname"), doc), appliance.AssetKind(r.URL.Query().Get("kind")))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	res, err := s.inventory.Submit(r.Context(), currentAgent(r).OrganizationID, rep)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, sbomResponse{inventoryResponse: inventoryAnswer(res),
		Format: doc.Format, Components: len(doc.Items), Skipped: doc.Skipped})
}

// sbomResponse is an inventory's answer with what was read from the document.
type sbomResponse struct {
	inventoryResponse
	Format     string `json:"format"`
	Components int    `json:"components"`
	Skipped    int    `json:"skipped"`
}

// sbomHostname is the asset an upload is the inventory of: the one asked for, else the
// described application and its version.
func sbomHostname(asked string, doc sbom.Document) string {
	if asked != "" {
		return asked
	}
	if doc.Name != "" && doc.Version != "" {
		return doc.Name + "@" + doc.Version
	}
	return doc.Name
}
