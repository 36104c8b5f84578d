/*
 * shapes: a C++ module.  It shows classes with virtual functions (called
 * through a base-class pointer, so through the vtable), objects made with
 * new and freed with delete (charged to the module like malloc), and a
 * global object whose constructor runs at load and whose destructor the
 * kernel runs at unload (registered through __cxa_atexit with this module's
 * __dso_handle).  The module is declared with the same C macros as a C one.
 */
#include <sys/kernel.h>

namespace {

class Shape {
public:
	virtual ~Shape() = default;
	virtual const char *name() const = 0;
	virtual int area() const = 0;
	virtual int sides() const = 0;
};

class Rectangle : public Shape {
public:
	Rectangle(int w, int h) : w_(w), h_(h) {}
	const char *name() const override { return "rectangle"; }
	int area() const override { return w_ * h_; }
	int sides() const override { return 4; }

private:
	int w_, h_;
};

class Square final : public Rectangle {
public:
	explicit Square(int s) : Rectangle(s, s) {}
	const char *name() const override { return "square"; }
};

class Triangle final : public Shape {
public:
	Triangle(int base, int height) : base_(base), height_(height) {}
	const char *name() const override { return "triangle"; }
	int area() const override { return base_ * height_ / 2; }
	int sides() const override { return 3; }

private:
	int base_, height_;
};

/* The module's shapes, owned by a global object. */
class Collection {
public:
	Collection()
	{
		printf("shapes: global constructor\n");
	}
	~Collection()
	{
		clear();
		printf("shapes: global destructor\n");
	}

	bool add(Shape *s)
	{
		if (!s || count_ == kMax)
			return false;
		items_[count_++] = s;
		return true;
	}

	void report() const
	{
		int total = 0;
		for (int i = 0; i < count_; i++) {
			const Shape *s = items_[i];
			printf("shapes: %s with %d sides, area %d\n",
			    s->name(), s->sides(), s->area());
			total += s->area();
		}
		printf("shapes: %d shapes, total area %d\n", count_, total);
	}

	void clear()
	{
		while (count_ > 0)
			delete items_[--count_];
	}

	int count() const { return count_; }

private:
	static constexpr int kMax = 8;
	Shape *items_[kMax] = {};
	int count_ = 0;
};

Collection collection;
int shapes_count;

int
shapes_modevent(module_t mod, int what, void *arg)
{
	switch (what) {
	case MOD_LOAD:
		collection.add(new Rectangle(3, 4));
		collection.add(new Square(5));
		collection.add(new Triangle(6, 3));
		collection.report();
		shapes_count = collection.count();
		return 0;
	case MOD_UNLOAD:
		printf("shapes: unloading with %d shapes\n",
		    collection.count());
		return 0;
	default:
		return 0;
	}
}

} // namespace

SYSCTL_INT("shapes.count", CTLFLAG_RD, &shapes_count,
    "Shapes the module holds");
DECLARE_MODULE(shapes, shapes_modevent);
MODULE_VERSION(shapes, 1);
MODULE_DESCRIPTION("C++: virtual functions, new/delete, a global object");
MODULE_AUTHOR("minikern");
MODULE_LICENSE("BSD-2-Clause");
