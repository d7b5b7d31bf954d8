package main

import (
	"fmt"
	"log/slog"
	"os"
	"reflect"
	"sort"
	"strings"
	"time"

	"github.com/spf13/viper"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/accounts"
	"github.com/vulnkeeper/vulnkeeper/appliance/feeds"
	"github.com/vulnkeeper/vulnkeeper/appliance/licensing"
	"github.com/vulnkeeper/vulnkeeper/appliance/notify"
	"github.com/vulnkeeper/vulnkeeper/sqlitestore"
	"github.com/vulnkeeper/vulnkeeper/web"
)

// Config is every setting, from defaults, the config file and VULNKEEPER_<SECTION>_<KEY>
// variables, in that order of precedence (flags override all).
type Config struct {
	Storage storageConfig         `mapstructure:"storage"`
	Server  web.Options           `mapstructure:"server"`
	Limits  web.LimitOptions      `mapstructure:"limits"`
	Auth    accounts.AuthOptions  `mapstructure:"auth"`
	Agent   appliance.AgentConfig `mapstructure:"agent"`
	License licensing.Options     `mapstructure:"license"`
	Feeds   feeds.Options         `mapstructure:"feeds"`
	Notify  notify.Options        `mapstructure:"notify"`
	Log     logConfig             `mapstructure:"log"`
}

type storageConfig struct {
	DataDir     string `mapstructure:"data_dir"`
	Synchronous string `mapstructure:"synchronous"`
	Readers     int    `mapstructure:"readers"`
}

type logConfig struct {
	Level  string `mapstructure:"level"`
	Format string `mapstructure:"format"`
}

func defaultConfig() Config {
	st := sqlitestore.DefaultOptions()
	return Config{
		Storage: storageConfig{DataDir: "./var", Synchronous: st.Synchronous, Readers: st.Readers},
		Server:  web.DefaultOptions(),
		Limits:  web.DefaultLimitOptions(),
		Auth:    accounts.DefaultAuthOptions(),
		Agent:   appliance.DefaultAgentConfig(),
		License: licensing.DefaultOptions(),
		Feeds:   feeds.DefaultOptions(),
		Notify:  notify.DefaultOptions(),
		Log:     logConfig{Level: "info", Format: "text"},
	}
}

func (c Config) storeOptions() sqlitestore.Options {
	return sqlitestore.Options{Synchronous: c.Storage.Synchronous, Readers: c.Storage.Readers}
}

// Validate refuses a configuration the server could not run with.
func (c Config) Validate() error {
	if c.Storage.DataDir == "" {
		return fmt.Errorf("storage.data_dir must not be empty")
	}
	if (c.Server.TLSCert == "") != (c.Server.TLSKey == "") {
		return fmt.Errorf("server.tls_cert and server.tls_key go together")
	}
	if c.Server.MaxBodyBytes < 1<<20 {
		return fmt.Errorf("server.max_body_bytes must be at least 1048576")
	}
	if c.Server.MemoryLimitMB < 0 {
		return fmt.Errorf("server.memory_limit_mb must not be negative")
	}
	if err := web.ValidateTrustedProxies(c.Server.TrustedProxies); err != nil {
		return err
	}
	if _, err := parseLevel(c.Log.Level); err != nil {
		return err
	}
	if c.Log.Format != "text" && c.Log.Format != "json" {
		return fmt.Errorf("log.format must be text or json, not %q", c.Log.Format)
	}
	if err := c.Feeds.Validate(); err != nil {
		return err
	}
	if err := c.Notify.Validate(); err != nil {
		return err
	}
	return c.Agent.Validate()
}

// newViper registers a default for every key (so every key is also read from the
// environment) and reads the config file when one is named.
func newViper(file string) (*viper.Viper, error) {
	v := viper.New()
	v.SetEnvPrefix("VULNKEEPER")
	v.SetEnvKeyReplacer(strings.NewReplacer(".", "_"))
	v.AutomaticEnv()
	setDefaults(v, "", reflect.ValueOf(defaultConfig()))
	if err := checkEnvironment(os.Environ()); err != nil {
		return nil, err
	}
	if file != "" {
		v.SetConfigFile(file)
		if err := v.ReadInConfig(); err != nil {
			return nil, fmt.Errorf("read config %s: %w", file, err)
		}
	}
	return v, nil
}

// checkEnvironment refuses a VULNKEEPER_* variable that names no setting, as UnmarshalExact
// refuses an unknown key in the file: a typo must not silently leave the default in force.
func checkEnvironment(environ []string) error {
	known := map[string]bool{}
	eachSetting("", reflect.ValueOf(defaultConfig()), func(key string, _ any) {
		known[envName(key)] = true
	})
	var unknown []string
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "VULNKEEPER_") && !known[name] {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return fmt.Errorf("unknown environment variable %s: no setting has that name (see vulnkeeper config show)", strings.Join(unknown, ", "))
	}
	return nil
}

// envName is the environment variable of a dotted setting key.
func envName(key string) string {
	return "VULNKEEPER_" + strings.ToUpper(strings.ReplaceAll(key, ".", "_"))
}

func setDefaults(v *viper.Viper, prefix string, val reflect.Value) {
	eachSetting(prefix, val, v.SetDefault)
}

// eachSetting calls fn with the dotted key and value of every leaf of a config struct.
func eachSetting(prefix string, val reflect.Value, fn func(key string, value any)) {
	t := val.Type()
	for i := 0; i < t.NumField(); i++ {
		key := t.Field(i).Tag.Get("mapstructure")
		if key == "" {
			continue
		}
		if prefix != "" {
			key = prefix + "." + key
		}
		f := val.Field(i)
		if f.Kind() == reflect.Struct {
			eachSetting(key, f, fn)
			continue
		}
		fn(key, f.Interface())
	}
}

func loadConfig(v *viper.Viper) (Config, error) {
	var c Config
	if err := v.UnmarshalExact(&c); err != nil {
		return Config{}, fmt.Errorf("configuration: %w", err)
	}
	return c, c.Validate()
}

func parseLevel(s string) (slog.Level, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(s)); err != nil {
		return 0, fmt.Errorf("log.level must be debug, info, warn or error, not %q", s)
	}
	return l, nil
}

func newLogger(c logConfig) *slog.Logger {
	level, _ := parseLevel(c.Level)
	opts := &slog.HandlerOptions{Level: level}
	if c.Format == "json" {
		return slog.New(slog.NewJSONHandler(os.Stderr, opts))
	}
	return slog.New(slog.NewTextHandler(os.Stderr, opts))
}

// secretSettings are shown as <redacted> by config show.
var secretSettings = map[string]bool{"license.admin_token": true, "feeds.nvd_api_key": true, "notify.smtp_password": true}

// redacted returns the configuration as nested maps keyed like the config file, with
// secrets hidden and durations written as in the file.
func (c Config) redacted() map[string]any {
	out := map[string]any{}
	eachSetting("", reflect.ValueOf(c), func(key string, value any) {
		section, name, _ := strings.Cut(key, ".")
		m, ok := out[section].(map[string]any)
		if !ok {
			m = map[string]any{}
			out[section] = m
		}
		if d, ok := value.(time.Duration); ok {
			value = d.String()
		}
		if secretSettings[key] && value != "" {
			value = "<redacted>"
		}
		m[name] = value
	})
	return out
}
