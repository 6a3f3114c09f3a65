package certificatesigningrequest

import (
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"slices"
	"strings"

	certificatesv1 "kubecore.io/api/certificates/v1"
	corev1 "kubecore.io/api/core/v1"
	"kubecore.io/apimachinery/pkg/util/validation"
	"kubecore.io/apimachinery/pkg/util/validation/field"
	"kubecore.io/client/util/cert"
)

// MinExpirationSeconds is the shortest validity a request may ask for.
const MinExpirationSeconds = 600

// knownUsages are the key usages a request may ask for.
var knownUsages = []certificatesv1.KeyUsage{
	certificatesv1.UsageSigning, certificatesv1.UsageDigitalSignature, certificatesv1.UsageContentCommitment,
	certificatesv1.UsageKeyEncipherment, certificatesv1.UsageKeyAgreement, certificatesv1.UsageDataEncipherment,
	certificatesv1.UsageCertSign, certificatesv1.UsageCRLSign, certificatesv1.UsageEncipherOnly,
	certificatesv1.UsageDecipherOnly, certificatesv1.UsageAny, certificatesv1.UsageServerAuth,
	certificatesv1.UsageClientAuth, certificatesv1.UsageCodeSigning, certificatesv1.UsageEmailProtection,
	certificatesv1.UsageSMIME, certificatesv1.UsageIPsecEndSystem, certificatesv1.UsageIPsecTunnel,
	certificatesv1.UsageIPsecUser, certificatesv1.UsageTimestamping, certificatesv1.UsageOCSPSigning,
	certificatesv1.UsageMicrosoftSGC, certificatesv1.UsageNetscapeSGC,
}

// Validate checks a new request: a signed PEM request, a qualified signer
// name other than the legacy one, known usages without repeats, a
// validity of at least ten minutes, and well-formed conditions.
func Validate(csr *certificatesv1.CertificateSigningRequest) field.ErrorList {
	spec := field.NewPath("spec")
	var errs field.ErrorList
	if len(csr.Spec.Request) == 0 {
		errs = append(errs, field.Required(spec.Child("request"), ""))
	} else if _, err := cert.ParseCertificateRequestPEM(csr.Spec.Request); err != nil {
		errs = append(errs, field.Invalid(spec.Child("request"), "<PEM>", err.Error()))
	}
	errs = append(errs, validateSignerName(csr.Spec.SignerName, spec.Child("signerName"))...)
	if csr.Spec.SignerName == certificatesv1.LegacyUnknownSignerName {
		errs = append(errs, field.Invalid(spec.Child("signerName"), csr.Spec.SignerName, "the legacy signerName is not allowed via this API version"))
	}
	if s := csr.Spec.ExpirationSeconds; s != nil && *s < MinExpirationSeconds {
		errs = append(errs, field.Invalid(spec.Child("expirationSeconds"), *s, fmt.Sprintf("may not specify a duration less than %d seconds (10 minutes)", MinExpirationSeconds)))
	}
	if len(csr.Spec.Usages) == 0 {
		errs = append(errs, field.Required(spec.Child("usages"), "usages must be provided"))
	}
	for i, u := range csr.Spec.Usages {
		p := spec.Child("usages").Index(i)
		switch {
		case !slices.Contains(knownUsages, u):
			errs = append(errs, field.NotSupported(p, u, knownUsages))
		case slices.Contains(csr.Spec.Usages[:i], u):
			errs = append(errs, field.Duplicate(p, u))
		}
	}
	return append(errs, validateStatus(&csr.Status)...)
}

// validateSignerName checks a signer name is "domain/path": a DNS
// subdomain with at least one dot, then a path of at most 253 characters.
func validateSignerName(name string, p *field.Path) field.ErrorList {
	if name == "" {
		return field.ErrorList{field.Required(p, "")}
	}
	domain, path, ok := strings.Cut(name, "/")
	if !ok || path == "" {
		return field.ErrorList{field.Invalid(p, name, "must be a fully qualified domain and path of the form 'example.com/signer-name'")}
	}
	var errs field.ErrorList
	if msgs := validation.IsDNS1123Subdomain(domain); len(msgs) > 0 || !strings.Contains(domain, ".") {
		errs = append(errs, field.Invalid(p, name, "the domain must be a fully qualified DNS subdomain, such as example.com"))
	}
	if len(path) > 253 {
		errs = append(errs, field.TooLong(p, path, 253))
	}
	return errs
}

// validateStatus checks the conditions (one per type, a type and a known
// status each, Approved, Denied and Failed only True, never both Approved
// and Denied) and that a certificate is PEM certificates.
func validateStatus(st *certificatesv1.CertificateSigningRequestStatus) field.ErrorList {
	conds := field.NewPath("status", "conditions")
	var errs field.ErrorList
	seen := map[certificatesv1.RequestConditionType]bool{}
	for i, c := range st.Conditions {
		p := conds.Index(i)
		if c.Type == "" {
			errs = append(errs, field.Required(p.Child("type"), ""))
		} else if seen[c.Type] {
			errs = append(errs, field.Duplicate(p.Child("type"), c.Type))
		}
		seen[c.Type] = true
		switch c.Status {
		case corev1.ConditionTrue:
		case corev1.ConditionFalse, corev1.ConditionUnknown:
			if isFinal(c.Type) {
				errs = append(errs, field.NotSupported(p.Child("status"), c.Status, []corev1.ConditionStatus{corev1.ConditionTrue}))
			}
		case "":
			errs = append(errs, field.Required(p.Child("status"), ""))
		default:
			errs = append(errs, field.NotSupported(p.Child("status"), c.Status, []corev1.ConditionStatus{corev1.ConditionTrue, corev1.ConditionFalse, corev1.ConditionUnknown}))
		}
	}
	if seen[certificatesv1.CertificateApproved] && seen[certificatesv1.CertificateDenied] {
		errs = append(errs, field.Invalid(conds, certificatesv1.CertificateDenied, "Approved and Denied conditions are mutually exclusive"))
	}
	if len(st.Certificate) > 0 {
		if err := validateCertificate(st.Certificate); err != nil {
			errs = append(errs, field.Invalid(field.NewPath("status", "certificate"), "<certificate data>", err.Error()))
		}
	}
	return errs
}

// isFinal: Approved, Denied and Failed conditions, once added, stay.
func isFinal(t certificatesv1.RequestConditionType) bool {
	return t == certificatesv1.CertificateApproved || t == certificatesv1.CertificateDenied || t == certificatesv1.CertificateFailed
}

// validateCertificate: one or more PEM CERTIFICATE blocks without
// headers, each a parsable certificate; other text around them is allowed.
func validateCertificate(data []byte) error {
	n := 0
	for rest := data; ; {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			break
		}
		if block.Type != "CERTIFICATE" {
			return fmt.Errorf("only CERTIFICATE PEM blocks are allowed, found %q", block.Type)
		}
		if len(block.Headers) > 0 {
			return fmt.Errorf("no PEM block headers are permitted")
		}
		if _, err := x509.ParseCertificate(block.Bytes); err != nil {
			return err
		}
		n++
	}
	if n == 0 {
		return fmt.Errorf("must contain at least one CERTIFICATE PEM block")
	}
	return nil
}

// ValidateUpdate checks an update of any kind: the request stays valid,
// Approved, Denied and Failed conditions are never removed, and an issued
// certificate never changes.
func ValidateUpdate(csr, old *certificatesv1.CertificateSigningRequest) field.ErrorList {
	errs := validateStatus(&csr.Status)
	conds := field.NewPath("status", "conditions")
	for _, t := range []certificatesv1.RequestConditionType{certificatesv1.CertificateApproved, certificatesv1.CertificateDenied, certificatesv1.CertificateFailed} {
		if hasCondition(old, t) && !hasCondition(csr, t) {
			errs = append(errs, field.Forbidden(conds, fmt.Sprintf("updates may not remove a condition of type %q", t)))
		}
	}
	if len(old.Status.Certificate) > 0 && string(old.Status.Certificate) != string(csr.Status.Certificate) {
		errs = append(errs, field.Invalid(field.NewPath("status", "certificate"), "<certificate data>", "updates may not modify existing certificate content"))
	}
	return errs
}

// hasCondition reports whether csr has a condition of type t.
func hasCondition(csr *certificatesv1.CertificateSigningRequest, t certificatesv1.RequestConditionType) bool {
	return slices.ContainsFunc(csr.Status.Conditions, func(c certificatesv1.CertificateSigningRequestCondition) bool { return c.Type == t })
}
