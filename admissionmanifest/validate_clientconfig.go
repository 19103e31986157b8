package admissionmanifest

import (
	"fmt"
	"net/url"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

func validateClientConfig(cc *admissionregistrationv1.WebhookClientConfig, path *field.Path) field.ErrorList {
	switch {
	case (cc.URL == nil) == (cc.Service == nil):
		return field.ErrorList{field.Required(path, "exactly one of url or service is required")}
	case cc.URL != nil:
		return validateWebhookURL(*cc.URL, path.Child("url"))
	default:
		s := cc.Service
		var port int32
		if s.Port != nil {
			port = *s.Port
		}
		// kube-apiserver passes the service's name and namespace, in that
		// order, to a function that takes the namespace, then the name: a
		// missing name is reported at service.namespace, a missing namespace
		// at service.name. gatehouse reports them where kube-apiserver does.
		return validateWebhookService(s.Name, s.Namespace, s.Path, port, path.Child("service"))
	}
}

// urlForm ends the errors of a URL that is not of the form kube-apiserver
// calls.
const urlForm = "; desired format: https://host[/path]"

// validateWebhookURL validates the url of a webhook's clientConfig as
// kube-apiserver does (https only, a host, no user information, fragment or
// query), except that a password in the URL is redacted from the errors.
func validateWebhookURL(rawURL string, path *field.Path) field.ErrorList {
	u, err := url.Parse(rawURL)
	if err != nil {
		return field.ErrorList{field.Required(path, "url must be a valid URL: "+redactParseError(err, rawURL)+urlForm)}
	}
	var errs field.ErrorList
	if u.Scheme != "https" {
		errs = append(errs, field.Invalid(path, u.Scheme, "'https' is the only allowed URL scheme"+urlForm))
	}
	if u.Host == "" {
		errs = append(errs, field.Invalid(path, u.Host, "host must be specified"+urlForm))
	}
	if u.User != nil {
		errs = append(errs, field.Invalid(path, redactedUserInfo(u.User), "user information is not permitted in the URL"))
	}
	if u.Fragment != "" {
		errs = append(errs, field.Invalid(path, u.Fragment, "fragments are not permitted in the URL"))
	}
	if u.RawQuery != "" {
		errs = append(errs, field.Invalid(path, u.RawQuery, "query parameters are not permitted in the URL"))
	}
	return errs
}

// redactedPassword replaces a password, as net/url's URL.Redacted does.
const redactedPassword = "xxxxx"

// redactedUserInfo is the user information of a URL as kube-apiserver
// prints it (escaped), with the password, if any, replaced.
func redactedUserInfo(u *url.Userinfo) string {
	if _, ok := u.Password(); ok {
		return url.UserPassword(u.Username(), redactedPassword).String()
	}
	return u.String()
}

// redactParseError is the text of url.Parse's error for rawURL with the
// password of the URL's user information, if any, replaced: net/url quotes
// the whole URL in its errors.
func redactParseError(err error, rawURL string) string {
	msg := err.Error()
	redacted, ok := redactRawURL(rawURL)
	if !ok {
		return msg
	}
	return strings.ReplaceAll(msg, fmt.Sprintf("%q", rawURL), fmt.Sprintf("%q", redacted))
}

// redactRawURL replaces the password of a URL that url.Parse may reject,
// finding the authority much as url.Parse does: after the first "//", up to
// the next "/", "?" or "#"; the user information is before its last "@",
// the password after the first ":" of that. It errs on the side of
// redacting.
func redactRawURL(raw string) (string, bool) {
	rest, _, _ := strings.Cut(raw, "#")
	slashes := strings.Index(rest, "//")
	if slashes < 0 {
		return "", false
	}
	start := slashes + 2 // index of the authority in raw
	authority := rest[start:]
	if i := strings.IndexAny(authority, "/?"); i >= 0 {
		authority = authority[:i]
	}
	at := strings.LastIndex(authority, "@")
	if at < 0 {
		return "", false
	}
	colon := strings.Index(authority[:at], ":")
	if colon < 0 {
		return "", false
	}
	return raw[:start+colon+1] + redactedPassword + raw[start+at:], true
}

// validateWebhookService validates the service of a webhook's clientConfig
// as kube-apiserver's ValidateWebhookService does: a Required error at
// path.name if name is empty, at path.namespace if namespace is empty (see
// validateClientConfig for what kube-apiserver passes as which).
func validateWebhookService(namespace, name string, urlPath *string, port int32, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if name == "" {
		errs = append(errs, field.Required(path.Child("name"), ""))
	}
	if namespace == "" {
		errs = append(errs, field.Required(path.Child("namespace"), ""))
	}
	if msgs := utilvalidation.IsValidPortNum(int(port)); msgs != nil {
		errs = append(errs, field.Invalid(path.Child("port"), port, "port is not valid: "+strings.Join(msgs, ", ")))
	}
	if urlPath == nil {
		return errs
	}
	p := *urlPath
	if p == "/" || p == "" {
		return errs
	}
	pathPath := path.Child("path")
	if p == "//" {
		return append(errs, field.Invalid(pathPath, p, "segment[0] may not be empty"))
	}
	if !strings.HasPrefix(p, "/") {
		errs = append(errs, field.Invalid(pathPath, p, "must start with a '/'"))
	}
	check := strings.TrimSuffix(p[1:], "/")
	for i, step := range strings.Split(check, "/") {
		if step == "" {
			errs = append(errs, field.Invalid(pathPath, p, fmt.Sprintf("segment[%d] may not be empty", i)))
			continue
		}
		for _, msg := range utilvalidation.IsDNS1123Subdomain(step) {
			errs = append(errs, field.Invalid(pathPath, p, fmt.Sprintf("segment[%d]: %v", i, msg)))
		}
	}
	return errs
}
