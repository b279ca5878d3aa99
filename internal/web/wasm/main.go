//go:build js && wasm

// Command wasm is the stepper page's engine: package engine (the spec)
// compiled to WebAssembly. It installs one global object, gmp, whose
// methods take and return JSON strings:
//
//	gmp.choices()            the Go releases and seeded bugs of the form
//	gmp.reset(boundsJSON)    a new session at the initial state → view
//	gmp.step(i)              take the i-th enabled action → view
//	gmp.undo()               go back one step → view
//	gmp.load(text)           replay a printed trace from the initial state → view
//	gmp.explore(liveness)    run the explorer at the bounds, load its counterexample → view
//	gmp.view()               the current view
//
// A view is engine.View, or {"error": "..."} with the view unchanged.
package main

import (
	"encoding/json"
	"syscall/js"
	"time"

	"github.com/gmpcheck/gmpcheck/internal/web/engine"
	"github.com/gmpcheck/gmpcheck/spec"
)

var session *engine.Session

type reply struct {
	engine.View
	Error   string `json:"error,omitempty"`
	Message string `json:"message,omitempty"`
}

func view(err error, msg string) any {
	r := reply{Message: msg}
	if session != nil {
		r.View = session.View()
	}
	if err != nil {
		r.Error = err.Error()
	}
	return engine.JSON(r)
}

func arg(args []js.Value, i int) js.Value {
	if i < len(args) {
		return args[i]
	}
	return js.Undefined()
}

func main() {
	s, err := engine.New(spec.Bounds{Ps: 2, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 2})
	if err == nil {
		session = s
	}
	api := map[string]any{
		"choices": js.FuncOf(func(this js.Value, args []js.Value) any { return engine.JSON(engine.Choices()) }),
		"reset": js.FuncOf(func(this js.Value, args []js.Value) any {
			var bj engine.BoundsJSON
			if err := json.Unmarshal([]byte(arg(args, 0).String()), &bj); err != nil {
				return view(err, "")
			}
			b, err := bj.Bounds()
			if err != nil {
				return view(err, "")
			}
			s, err := engine.New(b)
			if err != nil {
				return view(err, "")
			}
			session = s
			return view(nil, "")
		}),
		"step": js.FuncOf(func(this js.Value, args []js.Value) any {
			return view(session.Step(arg(args, 0).Int()), "")
		}),
		"undo": js.FuncOf(func(this js.Value, args []js.Value) any {
			session.Undo()
			return view(nil, "")
		}),
		"load": js.FuncOf(func(this js.Value, args []js.Value) any {
			return view(session.Load(arg(args, 0).String()), "")
		}),
		"explore": js.FuncOf(func(this js.Value, args []js.Value) any {
			msg, err := session.Explore(arg(args, 0).Truthy(), 2_000_000, time.Minute)
			return view(err, msg)
		}),
		"view": js.FuncOf(func(this js.Value, args []js.Value) any { return view(nil, "") }),
	}
	obj := js.Global().Get("Object").New()
	for k, f := range api {
		obj.Set(k, f)
	}
	js.Global().Set("gmp", obj)
	if ready := js.Global().Get("gmpReady"); ready.Type() == js.TypeFunction {
		ready.Invoke()
	}
	select {}
}
