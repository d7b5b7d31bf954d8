package catalog

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/vulnkeeper/vulnkeeper/appliance/cpe"
)

// readEcosystems reads a package-to-CPE index: {"ecosystems": {"npm": {"chromedriver":
// ["cpe:2.3:a:chromedriver_project:chromedriver:*:*:*:*:*:node.js:*:*"]}, …}}. Its value to
// the catalogue is the platform each name is for (target_sw node.js: the npm package, not
// Google's ChromeDriver), which NVD's own criteria state only for CVEs one happens to hold.
func readEcosystems(ctx context.Context, dec *json.Decoder, set *productSet) error {
	if err := expectDelim(dec, '{'); err != nil {
		return err
	}
	for dec.More() {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		ecosystem, err := objectKey(dec)
		if err != nil {
			return err
		}
		var packages map[string][]string
		if err := dec.Decode(&packages); err != nil {
			return jsonError(dec, fmt.Errorf("ecosystem %s: %w", ecosystem, err))
		}
		// In name order, so the identities come out in the same order every time.
		pkgs := make([]string, 0, len(packages))
		for pkg := range packages {
			pkgs = append(pkgs, pkg)
		}
		sort.Strings(pkgs)
		for _, pkg := range pkgs {
			for _, s := range packages[pkg] {
				n, err := cpe.Parse(s)
				if err != nil {
					return jsonError(dec, fmt.Errorf("ecosystem %s package %s: %w", ecosystem, pkg, err))
				}
				id, err := identityFromName(n, "", false)
				if err != nil {
					return jsonError(dec, fmt.Errorf("ecosystem %s package %s: %w", ecosystem, pkg, err))
				}
				set.add(id)
			}
		}
	}
	return expectDelim(dec, '}')
}
