package web

import (
	"net/http"
	"time"

	"github.com/julienschmidt/httprouter"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/containers"
	"github.com/vulnkeeper/vulnkeeper/appliance/jsonarray"
)

type containerScanRequest struct {
	Hostname string    `json:"hostname"`
	Images   imageList `json:"images"`
}

// imageList is the images array, decoded image by image and refused at the first image past
// the cap (see cappedArray); each image's report is bounded by the body cap.
type imageList []containerScanJSON

func (l *imageList) UnmarshalJSON(raw []byte) error {
	return cappedArray(raw, "images", containers.MaxImagesPerRequest, (*[]containerScanJSON)(l))
}

type containerScanJSON struct {
	ImageName   string         `json:"image_name"`
	ImageID     string         `json:"image_id"`
	ScanResults jsonarray.Span `json:"scan_results"` // a piece of the request body, not a copy
}

type containerScanResponse struct {
	Status               string `json:"status"`
	ImagesProcessed      int    `json:"images_processed"`
	VulnerabilitiesFound int    `json:"vulnerabilities_found"`
	Hostname             string `json:"hostname"`
}

type severityCountsJSON struct {
	Critical int  `json:"critical"`
	High     int  `json:"high"`
	Medium   int  `json:"medium"`
	Low      int  `json:"low"`
	Unknown  *int `json:"unknown,omitempty"`
}

type containerJSON struct {
	ID                 int64              `json:"id"`
	ImageName          string             `json:"image_name"`
	ImageTag           string             `json:"image_tag"`
	ImageID            string             `json:"image_id"`
	Hostname           string             `json:"hostname"`
	OrganizationID     int64              `json:"organization_id"`
	LastScanned        time.Time          `json:"last_scanned"`
	VulnerabilityCount severityCountsJSON `json:"vulnerability_count"`
}

type containerVulnJSON struct {
	CVEID            string      `json:"cve_id"`
	PackageName      string      `json:"package_name"`
	InstalledVersion string      `json:"installed_version"`
	FixedVersion     string      `json:"fixed_version"`
	Severity         string      `json:"severity"`
	Title            string      `json:"title"`
	Description      string      `json:"description"`
	Score            *float64    `json:"score,omitempty"`
	EPSS             *epssJSON   `json:"epss"`
	Triage           *triageJSON `json:"triage"`
	cveFactsJSON
}

type containerDetailJSON struct {
	containerJSON
	Vulnerabilities []containerVulnJSON `json:"vulnerabilities"`
}

func toContainerJSON(img appliance.ContainerImage) containerJSON {
	c := img.Counts
	counts := severityCountsJSON{Critical: c.Critical, High: c.High, Medium: c.Medium, Low: c.Low}
	if c.Unknown > 0 {
		counts.Unknown = &c.Unknown
	}
	return containerJSON{ID: img.ID, ImageName: img.Name, ImageTag: img.Tag, ImageID: img.ImageID, Hostname: img.Hostname,
		OrganizationID: img.OrganizationID, LastScanned: img.LastScanned, VulnerabilityCount: counts}
}

// toContainerDetailJSON lists the image's findings; those a triage decision suppresses only
// when include asks for them.
func toContainerDetailJSON(d containers.ContainerDetail, include bool, now time.Time) containerDetailJSON {
	out := containerDetailJSON{containerJSON: toContainerJSON(d.ContainerImage), Vulnerabilities: make([]containerVulnJSON, 0, len(d.Findings))}
	for _, f := range d.Findings {
		if !include && f.Triage.SuppressedAt(now) {
			continue
		}
		v := containerVulnJSON{CVEID: f.CVEID, PackageName: f.PackageName, InstalledVersion: f.InstalledVersion,
			FixedVersion: f.FixedVersion, Severity: f.Severity, Title: f.Title, Description: f.Description,
			EPSS: toEPSSJSON(f.EPSS), Triage: toTriageJSON(f.Triage, now), cveFactsJSON: toCVEFactsJSON(f.CVEFacts, f.Risk)}
		if f.HasScore {
			score := f.Score
			v.Score = &score
		}
		out.Vulnerabilities = append(out.Vulnerabilities, v)
	}
	return out
}

func (s *Server) containerScan(w http.ResponseWriter, r *http.Request) {
	var req containerScanRequest
	if err := decodeJSON(w, r, s.opts.MaxBodyBytes, &req); err != nil {
		s.writeError(w, r, err)
		return
	}
	images := make([]containers.ImageScan, len(req.Images))
	for i, img := range req.Images {
		images[i] = containers.ImageScan{Reference: img.ImageName, ImageID: img.ImageID, ScanResults: img.ScanResults}
	}
	res, err := s.containers.Submit(r.Context(), currentAgent(r).OrganizationID, req.Hostname, images)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, containerScanResponse{Status: "accepted", ImagesProcessed: res.Images,
		VulnerabilitiesFound: res.Vulnerabilities, Hostname: res.Hostname})
}

func (s *Server) listContainers(w http.ResponseWriter, r *http.Request) {
	f, err := containerFilter(r, currentUser(r).OrganizationID)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	format, err := listFormat(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if format == "csv" {
		s.exportContainers(w, r, f)
		return
	}
	items, total, err := s.containers.List(r.Context(), f)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, pageOf(appliance.Page[appliance.ContainerImage]{Items: items, Total: total, Page: f.Page,
		PerPage: f.PerPage}, toContainerJSON))
}

// containerFilter reads the list query; organization_id never widens the caller's scope.
func containerFilter(r *http.Request, orgID int64) (appliance.ContainerFilter, error) {
	if err := allowQuery(r, "page", "per_page", "severity", "search", "hostname", "organization_id", "include_suppressed", "format"); err != nil {
		return appliance.ContainerFilter{}, err
	}
	pg, err := parsePage(r, containers.DefaultContainersPerPage, containers.MaxContainersPerPage)
	if err != nil {
		return appliance.ContainerFilter{}, err
	}
	if _, err := queryInt(r, "organization_id"); err != nil {
		return appliance.ContainerFilter{}, err
	}
	include, err := includeSuppressed(r)
	if err != nil {
		return appliance.ContainerFilter{}, err
	}
	q := r.URL.Query()
	return appliance.ContainerFilter{OrganizationID: orgID, Severity: q.Get("severity"), Search: q.Get("search"),
		Hostname: q.Get("hostname"), IncludeSuppressed: include, Page: pg.Page, PerPage: pg.PerPage}, nil
}

func (s *Server) getContainer(w http.ResponseWriter, r *http.Request) {
	ref := httprouter.ParamsFromContext(r.Context()).ByName("id")
	include, err := includeSuppressed(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	d, err := s.containers.Get(r.Context(), currentUser(r).OrganizationID, ref)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, toContainerDetailJSON(d, include, s.triageNow()))
}
