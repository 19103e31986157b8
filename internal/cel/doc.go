// Package cel is kube-apiserver 1.37's CEL environment for stored
// expressions, written for gatehouse: the cel-go options and AST validators
// kube-apiserver enables, cel-go's extension libraries, the Kubernetes CEL
// libraries (URLs, Regex, Lists, Authz, AuthzSelectors, Quantity, IP, CIDR,
// Format, Semver, and JSONPatch for mutations), kube-apiserver's cost model,
// and the cost limits. matchcond and mutation compile and evaluate every
// expression in an environment built here, so that an expression is
// accepted, evaluated and charged exactly as kube-apiserver does.
//
// kube-apiserver compiles and evaluates stored expressions (match
// conditions, policies) with every library known to its version, whatever
// the compatibility version: NewEnv. It checks an expression that a write
// adds or changes at its compatibility version, 1.36, which lacks 1.37's
// list function includes(): NewExpressionsEnv. There is no other version
// switch.
//
// # Use
//
// NewEnv (or EnvOptions) builds the environment; extend it with variables,
// and with DeclaredTypes for object types. Compile with it, estimate costs
// with Env.EstimateCost and CostEstimator, and plan programs with a Planner:
//
//	env, _ := cel.NewEnv(cel.Variable("request", requestType))
//	planner, _ := cel.NewPlanner(env)
//	ast, iss := env.Compile(expr)
//	prg, _ := planner.NewProgram(ast)
//	val, cost, err := prg.Eval(ctx, activation)
//
// NewEnvOf builds the environment of the standard library and a set of
// Libraries only; LibrariesOf tells which libraries a parsed expression may
// need. Checked in the environment of its libraries, an expression gives the
// same checked AST, errors, costs and results as in the whole environment,
// at a fraction of the cost of building it.
//
// The Authz library asks an Authorizer (a small interface of this package)
// about AuthorizationAttributes; NewAuthorizerValue and
// NewResourceCheckValue make the values of the `authorizer` and
// `authorizer.requestResource` variables.
//
// # Bounded evaluation time
//
// kube-apiserver accepts lists.range(100000).exists(i, i < 0) under its cost
// limit (cost 700,012 of 1,000,000), then takes about 14 s to evaluate it on
// a 2-core machine, and the time grows with the square of the list. The
// cause is cel-go's cost tracking (interpreter.CostTracker, which
// kube-apiserver enables with cel.OptTrackCost): it pushes every value it
// observes on a stack, each operator pops its arguments by expression id,
// and several steps "drop" an id, searching the stack linearly from the
// top. In a comprehension, the values of the loop condition and of the loop
// step of every iteration stay on the stack, and every identifier observed
// drops its own id, which is never there: every iteration scans the whole
// stack. A profile shows 90% of the time in refValStack.drop.
//
// Program (planned by Planner) evaluates with the same plan as cel.Program,
// and an equivalent cost observer (observe.go) whose stack (costStack) finds
// the topmost entry of an id in constant time: each entry links to the one
// below it with the same id. Every stack operation is amortized constant
// time, so the evaluation time is linear in the work: lists.range(100000)
// takes about 30 ms of CPU. The costs, results and errors are
// kube-apiserver's (the conformance module compares them on thousands of
// expressions through both programs); TestComprehensionWorkIsLinear shows
// the quadratic work of cel-go's stack and the linear work of this one.
//
// cel-go charges a call after running it. For calls whose work grows faster
// than their arguments (distinct, sort, sortBy, sets.contains,
// sets.intersects, sets.equivalent) or that allocate in proportion to an
// argument (lists.range), and whose cost depends only on their arguments,
// Program checks the cost they will be charged when their last argument has
// been evaluated, and fails at once if it exceeds the limit, with the same
// error and the same cost: lists.range(999000).distinct() fails in
// milliseconds instead of running 10¹² comparisons first.
//
// kube-apiserver's cost model leaves some work uncharged, and Program keeps
// its costs. Constants and logical operators cost nothing, so a
// comprehension whose body is a long chain of && over constants does far
// more work than its cost says; string.format is charged for its format
// string only, whatever the size of what it formats. Program also counts
// evaluation steps (and one step per byte that string.format writes), and
// stops at DefaultStepLimit (2.5 million, about 100 ms), which every
// expression within the cost limit stays under unless most of its work is
// uncharged. One hole remains, in kube-apiserver as here: comparing nested
// lists or maps (==, in, includes, sets.*) is charged for their top level, so
// comparing a large nested structure many times costs little.
//
// # Differences from kube-apiserver
//
//   - Program stops an evaluation after DefaultStepLimit steps with the
//     error "operation cancelled: evaluation step limit exceeded"
//     (WithStepLimit(math.MaxUint64) removes the limit). kube-apiserver has
//     no such limit; the expressions it stops take kube-apiserver seconds to
//     hours (its evaluation time being quadratic).
//   - string.replace refuses, with an error, to build a result of more than
//     32 MiB (maxReplaceResult). kube-apiserver charges replace for its
//     receiver only, so x.replace("", x) squares the size of x for the cost
//     of x, and two such steps make it allocate a terabyte and die.
//   - Program's cost-limit failures of lists.range, distinct, sort, sortBy
//     and sets.* happen before the call runs rather than after (same error,
//     same cost).
//   - The Authz library passes the Authorizer the context given to
//     NewAuthorizerValue; kube-apiserver passes context.TODO(). A nil
//     Authorizer makes check() return the error "no authorizer" rather than
//     crash.
//   - A Planner plans with the program options of the base environment's
//     libraries; program options that other libraries added to the
//     environment are not applied (the environments of matchcond and
//     mutation add none).
//   - As 1.38 (k8s.io/apiserver v0.38.0-beta.0, which links cel.dev/cel-go
//     v0.33.2 and apimachinery v0.38), gatehouse has the environments of
//     1.38 (includes() in new expressions, isMask() in stored ones) but
//     cel-go v0.29.2's checker, interpreter and cost model and 1.37's
//     libraries otherwise; the conformance test
//     TestCELMatchesKubeAPIServerPerVersion found 1,251 of its 11,945
//     queries answered as 1.37 answers them, not as 1.38 does:
//     compile-error texts (cel-go 0.33 drops the empty "in container", suggests
//     "did you mean ...?" and places an undeclared qualified name at its
//     last member: 7 queries); runtime costs (831 queries, for example
//     lists.range(-1) costs 11, not 12) and estimates (about 400 queries,
//     for example matches() on an unbounded string estimated at
//     math.MaxUint64, includes() at a minimum of 3); distinct() of a list
//     that is an error (1.38 returns the error, 1.37 an internal
//     interface-conversion error: 6 queries); and huge quantities, where
//     apimachinery v0.38's resource.Quantity (no longer capped at 2^63-1,
//     29 significant digits) answers isInteger(), asInteger() (saturated
//     to the int64 bounds) and add() differently (8 queries). Modelling
//     the first three needs cel-go 0.33 (Go 1.27), which the module does
//     not link; the last, apimachinery v0.38's arithmetic.
package cel
