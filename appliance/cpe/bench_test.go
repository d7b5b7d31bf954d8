package cpe

import "testing"

func BenchmarkParseFormatted(b *testing.B) {
	criteria := realCriteria(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if _, err := Parse(criteria[i%len(criteria)]); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseURI(b *testing.B) {
	pairs := dictionaryPairs(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if _, err := Parse(pairs[i%len(pairs)].uri); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkString(b *testing.B) {
	criteria := realCriteria(b)
	names := make([]Name, len(criteria))
	for i, s := range criteria {
		names[i], _ = Parse(s)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		_ = names[i%len(names)].String()
	}
}
