package authzconfig

import (
	"encoding/csv"
	"fmt"
	"strings"
	"time"
)

// ParseFlags reads kube-apiserver's authorization flags from a command line
// (without the program name), starting from DefaultFlags, with pflag's
// rules: --name=value or --name value; the last value of a flag wins, except
// that --authorization-mode values (comma-separated) accumulate; "--" ends
// the flags. Other arguments are skipped, so a whole kube-apiserver command
// line can be given; an unrelated flag whose value is a separate argument
// that looks like an authorization flag would be misread, so give those in
// --name=value form.
func ParseFlags(args []string) (Flags, error) {
	f := DefaultFlags()
	modesSet := false
	for i := 0; i < len(args); i++ {
		arg := args[i]
		if arg == "--" {
			break
		}
		if !strings.HasPrefix(arg, "--") {
			continue
		}
		name, value, hasValue := strings.Cut(arg[2:], "=")
		if !isAuthorizationFlag(name) {
			continue
		}
		if !hasValue {
			if i+1 == len(args) {
				return Flags{}, fmt.Errorf("flag needs an argument: --%s", name)
			}
			i++
			value = args[i]
		}
		if err := f.set(name, value, &modesSet); err != nil {
			return Flags{}, fmt.Errorf("invalid argument %q for %q flag: %w", value, "--"+name, err)
		}
		f.Changed = append(f.Changed, name)
	}
	return f, nil
}

func isAuthorizationFlag(name string) bool {
	switch name {
	case FlagMode, FlagPolicyFile, FlagWebhookConfigFile, FlagWebhookVersion,
		FlagWebhookAuthorizedTTL, FlagWebhookUnauthorizedTTL, FlagConfig:
		return true
	}
	return false
}

func (f *Flags) set(name, value string, modesSet *bool) error {
	switch name {
	case FlagMode:
		// pflag's string slices read the value as one CSV record; the first
		// use replaces the default, later uses append.
		var modes []string
		if value != "" {
			record, err := csv.NewReader(strings.NewReader(value)).Read()
			if err != nil {
				return err
			}
			modes = record
		}
		if !*modesSet {
			f.Modes = []string{}
			*modesSet = true
		}
		f.Modes = append(f.Modes, modes...)
	case FlagPolicyFile:
		f.PolicyFile = value
	case FlagWebhookConfigFile:
		f.WebhookConfigFile = value
	case FlagWebhookVersion:
		f.WebhookVersion = value
	case FlagWebhookAuthorizedTTL, FlagWebhookUnauthorizedTTL:
		d, err := time.ParseDuration(value)
		if err != nil {
			return err
		}
		if name == FlagWebhookAuthorizedTTL {
			f.WebhookCacheAuthorizedTTL = d
		} else {
			f.WebhookCacheUnauthorizedTTL = d
		}
	case FlagConfig:
		f.ConfigFile = value
	}
	return nil
}
