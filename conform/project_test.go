package conform

import "testing"

func TestProjection(t *testing.T) {
	pr, err := Projection()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range pr {
		t.Log(c)
	}
}
