package version

import "testing"

func BenchmarkCompareStrings(b *testing.B) {
	versions := realVersions(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		Compare(versions[i%len(versions)], versions[(i+1)%len(versions)])
	}
}

func BenchmarkCompareParsed(b *testing.B) {
	strs := realVersions(b)
	versions := make([]Version, len(strs))
	for i, s := range strs {
		versions[i] = Parse(s)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		versions[i%len(versions)].Compare(versions[(i+1)%len(versions)])
	}
}

func BenchmarkParse(b *testing.B) {
	versions := realVersions(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		Parse(versions[i%len(versions)])
	}
}
