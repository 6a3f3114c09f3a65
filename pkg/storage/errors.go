package storage

import (
	"errors"
	"fmt"
)

// ErrorCode classifies a StorageError.
type ErrorCode int

// The storage error codes.
const (
	ErrCodeKeyNotFound ErrorCode = iota + 1
	ErrCodeKeyExists
	ErrCodeResourceVersionConflicts
	ErrCodeInvalidObj
	ErrCodeUnreachable
	// ErrCodeExpired: the requested revision was compacted or left the cache.
	ErrCodeExpired
	// ErrCodeInvalidContinue: a continue token that does not parse.
	ErrCodeInvalidContinue
	// ErrCodeTooLargeResourceVersion: a consistent read could not reach the
	// asked revision in time.
	ErrCodeTooLargeResourceVersion
)

var codeText = map[ErrorCode]string{
	ErrCodeKeyNotFound:              "key not found",
	ErrCodeKeyExists:                "key exists",
	ErrCodeResourceVersionConflicts: "resource version conflicts",
	ErrCodeInvalidObj:               "invalid object",
	ErrCodeUnreachable:              "server unreachable",
	ErrCodeExpired:                  "resource version expired",
	ErrCodeInvalidContinue:          "invalid continue token",
	ErrCodeTooLargeResourceVersion:  "too large resource version",
}

// StorageError is the error of a storage operation.
type StorageError struct {
	Code            ErrorCode
	Key             string
	ResourceVersion int64
	// Detail adds what the code does not say (a precondition, the cause).
	Detail string
	Err    error
}

func (e *StorageError) Error() string {
	msg := fmt.Sprintf("StorageError: %s, Code: %d, Key: %s, ResourceVersion: %d", codeText[e.Code], e.Code, e.Key, e.ResourceVersion)
	if e.Detail != "" {
		msg += ", Details: " + e.Detail
	}
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

func (e *StorageError) Unwrap() error { return e.Err }

// NewError returns a StorageError.
func NewError(code ErrorCode, key string, rv int64, detail string) *StorageError {
	return &StorageError{Code: code, Key: key, ResourceVersion: rv, Detail: detail}
}

// NewUnreachableError wraps a failure to reach the backend.
func NewUnreachableError(key string, err error) *StorageError {
	return &StorageError{Code: ErrCodeUnreachable, Key: key, Err: err}
}

func hasCode(err error, code ErrorCode) bool {
	var se *StorageError
	return errors.As(err, &se) && se.Code == code
}

// IsNotFound reports a missing key.
func IsNotFound(err error) bool { return hasCode(err, ErrCodeKeyNotFound) }

// IsExist reports a create on an existing key.
func IsExist(err error) bool { return hasCode(err, ErrCodeKeyExists) }

// IsConflict reports a failed precondition or compare-and-swap.
func IsConflict(err error) bool { return hasCode(err, ErrCodeResourceVersionConflicts) }

// IsUnreachable reports a backend that did not answer.
func IsUnreachable(err error) bool { return hasCode(err, ErrCodeUnreachable) }

// IsExpired reports a compacted or evicted revision.
func IsExpired(err error) bool { return hasCode(err, ErrCodeExpired) }

// IsInvalidObj reports an object that cannot be decoded or validated.
func IsInvalidObj(err error) bool { return hasCode(err, ErrCodeInvalidObj) }
