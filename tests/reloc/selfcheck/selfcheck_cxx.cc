/*
 * The C++ half of a self-checking variant: virtual calls through base
 * pointers (vtables are relocated data pointing at code), objects in static
 * storage built by a global constructor (.init_array) and destroyed at
 * unload (__cxa_atexit with the module's __dso_handle), a pure-virtual
 * interface implemented twice, and a class with only inline virtual
 * functions, whose vtable is a weak definition in a COMDAT group.
 */
#include <sys/kernel.h>

#include "selfcheck.h"

namespace sc_ns {

/* No key function: the vtable and the functions are weak, in COMDAT groups. */
struct Named {
	virtual ~Named() {}
	virtual int id() const { return 7; }
};

struct Renamed : Named {
	int id() const override { return 9; }
};

} // namespace sc_ns

namespace {

class Shape {
public:
	virtual ~Shape() {}
	virtual int area() const = 0;
	virtual int sides() const = 0;
	virtual const char *name() const { return "shape"; }
};

class Rect : public Shape {
public:
	Rect(int w, int h) : w_(w), h_(h) {}
	int area() const override { return w_ * h_; }
	int sides() const override { return 4; }
	const char *name() const override { return "rect"; }

protected:
	int w_, h_;
};

class Square final : public Rect {
public:
	explicit Square(int s) : Rect(s, s) {}
	const char *name() const override { return "square"; }
};

class Tri final : public Shape {
public:
	Tri(int b, int h) : b_(b), h_(h) {}
	int area() const override { return b_ * h_ / 2; }
	int sides() const override { return 3; }

private:
	int b_, h_;
};

int constructed;

/* Built by the module's constructor, destroyed at unload. */
struct Zoo {
	Rect r{3, 4};
	Square s{5};
	Tri t{6, 10};
	Shape *all[3] = { &r, &s, &t };
	Zoo() { constructed++; }
	~Zoo() { constructed--; }
} zoo;

} // namespace

extern "C" int
SC_XCAT(SC_MOD, _cxx_constructed)(void)
{
	return constructed;
}

extern "C" int
SC_XCAT(SC_MOD, _cxx_checksum)(void)
{
	static sc_ns::Renamed renamed;
	sc_ns::Named named;
	sc_ns::Named *which[2] = { &named, &renamed };
	int sum = 0;
	for (sc_ns::Named *n : which)
		sum += SC_HIDE(n)->id() * 1000;	/* 7000 + 9000 */
	for (Shape *s : zoo.all) {
		Shape *h = SC_HIDE(s);
		sum += h->area() * 100 + h->sides() + (int)strlen(h->name());
	}
	/* 16000 + (12, 4, 4) + (25, 4, 6) + (30, 3, 5): 16000 + 6700 + 11 + 15 */
	return sum - 695;
}
