// Package authzcond is the implementation of package matchcond's
// authorization match conditions (matchcond's names for them are aliases of
// these): the compiler, the matcher, the native closures of common condition
// shapes, the SubjectAccessReview as CEL sees it, and two pieces that
// matchcond's admission conditions share with them, the fast parser and the
// cache of environments. It imports nothing of admission, so that a program
// that only authorizes (packages authorizer and authzconfig import it, not
// matchcond) does not link admission's API types.
package authzcond
