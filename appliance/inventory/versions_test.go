package inventory

import (
	"testing"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

func TestMatchVersion(t *testing.T) {
	python := appliance.Identity{Part: "a", Vendor: "python", Product: "python"}
	jre := appliance.Identity{Part: "a", Vendor: "oracle", Product: "jre"}
	zoom := appliance.Identity{Part: "a", Vendor: "zoom", Product: "zoom"}
	chrome := appliance.Identity{Part: "a", Vendor: "google", Product: "chrome"}
	cases := []struct {
		id                  appliance.Identity
		reported, update    string
		version, wantUpdate string
	}{
		{python, "3.9.1150.0", "", "3.9.1", ""},
		{python, "3.11.4150.0", "", "3.11.4", ""},
		{python, "3.9.1", "", "3.9.1", ""},
		{jre, "8.0.3010.9", "", "1.8.0", "update301"},
		{jre, "8.0.4710.9", "", "1.8.0", "update471"},
		{jre, "17.0.2", "", "17.0.2", ""},
		{zoom, "5.7.4 (804)", "", "5.7.4", ""},
		{chrome, "116.0.5845.96", "", "116.0.5845.96", ""},           // four-part builds stay
		{python, "3.9.1150.0", "update_1", "3.9.1150.0", "update_1"}, // a confirmed update wins
		{appliance.Identity{}, "1.0 (beta 2)", "", "1.0", ""},        // never a version with brackets
	}
	for _, c := range cases {
		v, u := matchVersion(appliance.Product{Identity: c.id, Version: c.reported, Update: c.update})
		if v != c.version || u != c.wantUpdate {
			t.Errorf("%s %q: %q %q, want %q %q", c.id, c.reported, v, u, c.version, c.wantUpdate)
		}
	}
}
