package main

import (
	"reflect"
	"testing"
)

// The shipped configuration file documents every key with its default: it must load without
// error (UnmarshalExact refuses unknown keys) and equal the built-in defaults.
func TestPackagedConfigIsTheDefaults(t *testing.T) {
	v, err := newViper("packaging/vulnkeeper.yaml")
	if err != nil {
		t.Fatal(err)
	}
	got, err := loadConfig(v)
	if err != nil {
		t.Fatal(err)
	}
	want := defaultConfig()
	want.Storage.DataDir = "/var/lib/vulnkeeper"
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("packaging/vulnkeeper.yaml differs from the defaults:\n got %+v\nwant %+v", got, want)
	}
	for _, key := range v.AllKeys() {
		if !v.InConfig(key) {
			t.Errorf("key %s has a default but is missing from packaging/vulnkeeper.yaml", key)
		}
	}
}
