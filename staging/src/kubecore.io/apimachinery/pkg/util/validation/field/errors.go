package field

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// ErrorType says why a field is invalid. The values are the CauseType strings
// of a meta/v1 Status, which is how clients see them.
type ErrorType string

// The error types, with the cause strings Kubernetes sends.
const (
	// ErrorTypeNotFound: a referenced value does not exist.
	ErrorTypeNotFound ErrorType = "FieldValueNotFound"
	// ErrorTypeRequired: a value is missing (empty string, null, empty list).
	ErrorTypeRequired ErrorType = "FieldValueRequired"
	// ErrorTypeDuplicate: a value that must be unique is repeated.
	ErrorTypeDuplicate ErrorType = "FieldValueDuplicate"
	// ErrorTypeInvalid: a value is malformed or out of range.
	ErrorTypeInvalid ErrorType = "FieldValueInvalid"
	// ErrorTypeNotSupported: a value is not one of an enumeration.
	ErrorTypeNotSupported ErrorType = "FieldValueNotSupported"
	// ErrorTypeForbidden: a well-formed value that is not allowed here.
	ErrorTypeForbidden ErrorType = "FieldValueForbidden"
	// ErrorTypeTooLong: a value is longer than allowed; the value is not shown.
	ErrorTypeTooLong ErrorType = "FieldValueTooLong"
	// ErrorTypeTooShort: a value is shorter than allowed.
	ErrorTypeTooShort ErrorType = "FieldValueTooShort"
	// ErrorTypeTooMany: a list has more items than allowed.
	ErrorTypeTooMany ErrorType = "FieldValueTooMany"
	// ErrorTypeTooFew: a list has fewer items than required.
	ErrorTypeTooFew ErrorType = "FieldValueTooFew"
	// ErrorTypeInternal: a failure not caused by the input.
	ErrorTypeInternal ErrorType = "InternalError"
	// ErrorTypeTypeInvalid: a value does not have the schema's type.
	ErrorTypeTypeInvalid ErrorType = "FieldValueTypeInvalid"
)

// String returns the human text of the type, as it starts an error body.
func (t ErrorType) String() string {
	switch t {
	case ErrorTypeNotFound:
		return "Not found"
	case ErrorTypeRequired:
		return "Required value"
	case ErrorTypeDuplicate:
		return "Duplicate value"
	case ErrorTypeInvalid, ErrorTypeTypeInvalid:
		return "Invalid value"
	case ErrorTypeNotSupported:
		return "Unsupported value"
	case ErrorTypeForbidden:
		return "Forbidden"
	case ErrorTypeTooLong:
		return "Too long"
	case ErrorTypeTooShort:
		return "Too short"
	case ErrorTypeTooMany:
		return "Too many"
	case ErrorTypeTooFew:
		return "Too few"
	case ErrorTypeInternal:
		return "Internal error"
	default:
		return fmt.Sprintf("<unknown error %q>", string(t))
	}
}

// Error is one field-level validation error.
type Error struct {
	Type     ErrorType
	Field    string
	BadValue any
	Detail   string
}

var _ error = (*Error)(nil)

// omitted marks a BadValue that must not be printed.
type omitted struct{}

// OmitValueType is a BadValue for errors about a whole object whose value
// is not worth printing (Kubernetes' field.OmitValueType).
type OmitValueType struct{}

// Error renders "<field>: <body>".
func (e *Error) Error() string {
	return e.Field + ": " + e.ErrorBody()
}

// ErrorBody renders the error without its field: the type's text, the bad
// value for the types that show one, and the detail.
func (e *Error) ErrorBody() string {
	var s string
	switch e.Type {
	case ErrorTypeRequired, ErrorTypeForbidden, ErrorTypeTooLong, ErrorTypeTooShort, ErrorTypeInternal:
		s = e.Type.String()
	case ErrorTypeInvalid, ErrorTypeTypeInvalid, ErrorTypeNotSupported, ErrorTypeNotFound,
		ErrorTypeDuplicate, ErrorTypeTooMany, ErrorTypeTooFew:
		switch e.BadValue.(type) {
		case omitted, OmitValueType:
			s = e.Type.String()
		default:
			s = e.Type.String() + ": " + renderValue(e.BadValue)
		}
	default:
		s = "Internal error: unhandled error code: " + string(e.Type) + ": please report this"
	}
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	return s
}

// renderValue prints simple values plainly, strings quoted and anything else
// as JSON, falling back to String() and then Go syntax.
func renderValue(v any) string {
	switch t := v.(type) {
	case string:
		return strconv.Quote(t)
	case int64, int32, float64, float32, bool:
		return fmt.Sprint(t)
	}
	if b, err := json.Marshal(v); err == nil {
		return string(b)
	}
	if s, ok := v.(fmt.Stringer); ok {
		return s.String()
	}
	return fmt.Sprintf("%#v", v)
}

// NotFound reports that value, referenced at path, does not exist.
func NotFound(path *Path, value any) *Error {
	return &Error{Type: ErrorTypeNotFound, Field: path.String(), BadValue: value}
}

// Required reports a missing value.
func Required(path *Path, detail string) *Error {
	return &Error{Type: ErrorTypeRequired, Field: path.String(), BadValue: "", Detail: detail}
}

// Duplicate reports a repeated value that must be unique.
func Duplicate(path *Path, value any) *Error {
	return &Error{Type: ErrorTypeDuplicate, Field: path.String(), BadValue: value}
}

// Invalid reports a malformed or out-of-range value.
func Invalid(path *Path, value any, detail string) *Error {
	return &Error{Type: ErrorTypeInvalid, Field: path.String(), BadValue: value, Detail: detail}
}

// NotSupported reports a value outside an enumeration and lists the valid
// values, quoted, in the order given.
func NotSupported[T ~string](path *Path, value any, validValues []T) *Error {
	detail := ""
	if len(validValues) > 0 {
		quoted := make([]string, len(validValues))
		for i, v := range validValues {
			quoted[i] = strconv.Quote(string(v))
		}
		detail = "supported values: " + strings.Join(quoted, ", ")
	}
	return &Error{Type: ErrorTypeNotSupported, Field: path.String(), BadValue: value, Detail: detail}
}

// Forbidden reports a well-formed value that is not allowed here.
func Forbidden(path *Path, detail string) *Error {
	return &Error{Type: ErrorTypeForbidden, Field: path.String(), BadValue: "", Detail: detail}
}

// TooLong reports a value longer than maxLength bytes, without printing the
// value. A negative maxLength leaves the limit out of the message.
func TooLong(path *Path, _ any, maxLength int) *Error {
	detail := "value is too long"
	if maxLength >= 0 {
		detail = fmt.Sprintf("may not be more than %d %s", maxLength, plural(maxLength, "byte", "bytes"))
	}
	return &Error{Type: ErrorTypeTooLong, Field: path.String(), BadValue: "<value omitted>", Detail: detail}
}

// TooShort reports a value shorter than minLength characters.
func TooShort[T ~string](path *Path, value T, minLength int) *Error {
	detail := "value is too short"
	if minLength >= 0 {
		detail = fmt.Sprintf("must be at least %d %s", minLength, plural(minLength, "character", "characters"))
	}
	return &Error{Type: ErrorTypeTooShort, Field: path.String(), BadValue: string(value), Detail: detail}
}

// TooMany reports a list of actual items where at most maxItems are allowed. A
// negative actual is not printed; a negative maxItems leaves the limit out.
func TooMany(path *Path, actual, maxItems int) *Error {
	detail := "has too many items"
	if maxItems >= 0 {
		detail = fmt.Sprintf("must have at most %d %s", maxItems, plural(maxItems, "item", "items"))
	}
	var bad any = actual
	if actual < 0 {
		bad = omitted{}
	}
	return &Error{Type: ErrorTypeTooMany, Field: path.String(), BadValue: bad, Detail: detail}
}

// TooFew reports a list of actual items where at least minItems are required.
func TooFew(path *Path, actual, minItems int) *Error {
	detail := "has too few items"
	if minItems >= 0 {
		detail = fmt.Sprintf("must have at least %d %s", minItems, plural(minItems, "item", "items"))
	}
	return &Error{Type: ErrorTypeTooFew, Field: path.String(), BadValue: actual, Detail: detail}
}

// InternalError reports a failure that is not the input's fault. err must
// not be nil.
func InternalError(path *Path, err error) *Error {
	return &Error{Type: ErrorTypeInternal, Field: path.String(), BadValue: err, Detail: err.Error()}
}

// TypeInvalid reports a value whose type does not match the schema.
func TypeInvalid(path *Path, value any, detail string) *Error {
	return &Error{Type: ErrorTypeTypeInvalid, Field: path.String(), BadValue: value, Detail: detail}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
