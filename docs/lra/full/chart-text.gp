# chart-text.svg and chart-text.png, written by attnzoo; rerun with `gnuplot chart-text.gp` in this folder.
$f0 << EOD
"full" 0.4192 89.7785 7 0
EOD
$f1 << EOD
"local" 4.0628 90.2896 1.90048 0.722767
"bigbird" 2.4977 90.6303 2.29658 0.240922
EOD
$f2 << EOD
"linformer" 2.8621 88.4157 2.09157 0.481844
"performer" 3 90.2896 2.32809 0.722767
"linear" 4.172 90.7155 1.85935 0.602306
EOD
$f3 << EOD
"reformer" 1.9411 89.6934 2.26988 1.08415
"sinkhorn" 3.0333 90.5451 2.17487 0.120461
EOD
$f4 << EOD
"mixer" 8.1942 89.7785 1.53665 0
EOD

set terminal svg size 1100,650 dynamic noenhanced font 'Helvetica,13' background rgb 'white'
set output 'chart-text.svg'
set title "Text on this CPU (preset full)"
set xlabel "training steps/s at 4096 tokens (attnzoo bench, batch 2, 2 layer(s), dim 128), log scale"
set ylabel "test accuracy (%): Text"
set grid
set key outside right top title "family (bubble area: peak memory at 4K)"
set logscale x
set xrange [0.232889:14.7496]
set yrange [67.017:94.3178]
set xtics ("0.5" 0.5, "1" 1, "2" 2, "5" 5, "10" 10)
set label 1 "full" at 0.4192,89.7785 center offset char 0,2.16 front
set label 2 "local" at 4.0628,90.2896 center offset char 0,-1.0721 front
set label 3 "bigbird" at 2.4977,90.6303 center offset char 0,1.1566 front
set label 4 "linformer" at 2.8621,88.4157 center offset char 0,-1.11287 front
set label 5 "performer" at 3,90.2896 center offset char 5.93124,2.16333 front
set arrow from first 3.1324,90.5308 to first 3.74114,91.5225 nohead lw 0.8 lc rgb '#999999' back
set label 6 "linear" at 4.172,90.7155 center offset char 4.24374,0 front
set label 7 "reformer" at 1.9411,89.6934 center offset char 0,1.15091 front
set label 8 "sinkhorn" at 3.0333,90.5451 center offset char 0,3.13064 front
set arrow from first 3.0333,90.9476 to first 3.0333,92.4895 nohead lw 0.8 lc rgb '#999999' back
set label 9 "mixer" at 8.1942,89.7785 center offset char 0,0.994486 front
set arrow from graph 0, first 70.017 to graph 1, first 70.017 nohead dt 2 lc rgb '#888888'
set label 10 "chance (majority class)" at graph 0.01, first 70.017 offset 0,0.6 left textcolor rgb '#888888'
plot $f0 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#1f77b4' notitle, \
     $f0 using 2:3:4 with points pt 7 ps variable lc rgb '#701f77b4' title "dense", $f0 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#1f77b4' notitle, \
     $f1 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#2ca02c' notitle, \
     $f1 using 2:3:4 with points pt 7 ps variable lc rgb '#702ca02c' title "fixed", $f1 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#2ca02c' notitle, \
     $f2 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#9467bd' notitle, \
     $f2 using 2:3:4 with points pt 7 ps variable lc rgb '#709467bd' title "low-rank/kernel", $f2 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#9467bd' notitle, \
     $f3 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#ff7f0e' notitle, \
     $f3 using 2:3:4 with points pt 7 ps variable lc rgb '#70ff7f0e' title "learned", $f3 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#ff7f0e' notitle, \
     $f4 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#8c564b' notitle, \
     $f4 using 2:3:4 with points pt 7 ps variable lc rgb '#708c564b' title "attention-free", $f4 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#8c564b' notitle

unset output
set terminal pngcairo size 1100,650 noenhanced font 'Helvetica,11' background rgb 'white'
set output 'chart-text.png'
set title "Text on this CPU (preset full)"
set xlabel "training steps/s at 4096 tokens (attnzoo bench, batch 2, 2 layer(s), dim 128), log scale"
set ylabel "test accuracy (%): Text"
set grid
set key outside right top title "family (bubble area: peak memory at 4K)"
set logscale x
set xrange [0.232889:14.7496]
set yrange [67.017:94.3178]
set xtics ("0.5" 0.5, "1" 1, "2" 2, "5" 5, "10" 10)
set label 1 "full" at 0.4192,89.7785 center offset char 0,2.16 front
set label 2 "local" at 4.0628,90.2896 center offset char 0,-1.0721 front
set label 3 "bigbird" at 2.4977,90.6303 center offset char 0,1.1566 front
set label 4 "linformer" at 2.8621,88.4157 center offset char 0,-1.11287 front
set label 5 "performer" at 3,90.2896 center offset char 5.93124,2.16333 front
set arrow from first 3.1324,90.5308 to first 3.74114,91.5225 nohead lw 0.8 lc rgb '#999999' back
set label 6 "linear" at 4.172,90.7155 center offset char 4.24374,0 front
set label 7 "reformer" at 1.9411,89.6934 center offset char 0,1.15091 front
set label 8 "sinkhorn" at 3.0333,90.5451 center offset char 0,3.13064 front
set arrow from first 3.0333,90.9476 to first 3.0333,92.4895 nohead lw 0.8 lc rgb '#999999' back
set label 9 "mixer" at 8.1942,89.7785 center offset char 0,0.994486 front
set arrow from graph 0, first 70.017 to graph 1, first 70.017 nohead dt 2 lc rgb '#888888'
set label 10 "chance (majority class)" at graph 0.01, first 70.017 offset 0,0.6 left textcolor rgb '#888888'
plot $f0 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#1f77b4' notitle, \
     $f0 using 2:3:4 with points pt 7 ps variable lc rgb '#701f77b4' title "dense", $f0 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#1f77b4' notitle, \
     $f1 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#2ca02c' notitle, \
     $f1 using 2:3:4 with points pt 7 ps variable lc rgb '#702ca02c' title "fixed", $f1 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#2ca02c' notitle, \
     $f2 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#9467bd' notitle, \
     $f2 using 2:3:4 with points pt 7 ps variable lc rgb '#709467bd' title "low-rank/kernel", $f2 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#9467bd' notitle, \
     $f3 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#ff7f0e' notitle, \
     $f3 using 2:3:4 with points pt 7 ps variable lc rgb '#70ff7f0e' title "learned", $f3 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#ff7f0e' notitle, \
     $f4 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#8c564b' notitle, \
     $f4 using 2:3:4 with points pt 7 ps variable lc rgb '#708c564b' title "attention-free", $f4 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#8c564b' notitle

unset output
